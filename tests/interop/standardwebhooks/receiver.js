// A webhook receiver that trusts nothing of courier's: each POST is verified with the official
// standardwebhooks library, `new Webhook(secret).verify(body, headers)`, and answered 200 when it
// verifies, 401 when not. Usage: WEBHOOK_SECRET=whsec_... node receiver.js. Listens on 127.0.0.1, port 0,
// and prints "listening <port>"; then one line per request, "verified <webhook-id>" or
// "refused <reason>", which the test counts. Stops on SIGTERM.
"use strict";

const http = require("node:http");
const { Webhook } = require("standardwebhooks");

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error("usage: WEBHOOK_SECRET=whsec_... node receiver.js");
  process.exit(2);
}
const webhook = new Webhook(secret);

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    let status = 200;
    try {
      webhook.verify(body, req.headers);
      console.log(`verified ${req.headers["webhook-id"]}`);
    } catch (e) {
      status = 401;
      console.log(`refused ${e.message}`);
    }
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: status === 200 ? "ok" : "unauthorized" }));
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log(`listening ${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
