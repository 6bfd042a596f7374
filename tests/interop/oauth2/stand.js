// A real OAuth2 authorization server and a webhook receiver that trusts only it, for courier's
// interop tests (tests/interop/oauth2_test.cpp). Nothing here is courier's code:
//   - the token endpoint is oauth2-mock-server's: client-credentials grant, RS256 JWTs, its JWKS
//     at /jwks. Its hooks make each token's lifetime TOKEN_LIFETIME_S (exp and expires_in), give
//     it a jti, and refuse a client that does not authenticate with CLIENT_ID and CLIENT_SECRET
//     (HTTP Basic, form-encoded as RFC 6749 section 2.3.1 has it): 401 invalid_client.
//   - the receiver (POST /deliver) verifies each delivery's "Authorization: Bearer <JWT>" with
//     jose against the server's JWKS (signature, issuer, exp) and answers 200, or 401 when there is
//     no token, it does not verify, or its jti was revoked. POST /control/revoke-next revokes the
//     token of the next delivery that would have been accepted.
// Usage: CLIENT_ID=.. CLIENT_SECRET=.. [TOKEN_LIFETIME_S=5] [TOKENS_FILE=path] node stand.js
// Prints "listening <token endpoint port> <receiver port>", then one line per event:
//   token-issued <jti> <iat> <exp> | token-refused <reason>
//   delivery <idempotency-key> <jti or -> <status> <reason> | revoked <jti>
// TOKENS_FILE gets every access token issued, one a line, so a test can look for them in logs.
"use strict";

const fs = require("node:fs");
const http = require("node:http");
const crypto = require("node:crypto");
const { OAuth2Server } = require("oauth2-mock-server");
const jose = require("jose");

const clientId = process.env.CLIENT_ID;
const clientSecret = process.env.CLIENT_SECRET;
const lifetime = Number(process.env.TOKEN_LIFETIME_S || "5");
const tokensFile = process.env.TOKENS_FILE;
if (!clientId || !clientSecret) {
  console.error("usage: CLIENT_ID=.. CLIENT_SECRET=.. node stand.js");
  process.exit(2);
}

function formDecode(text) {
  return decodeURIComponent(text.replace(/\+/g, " "));
}

// RFC 6749 section 2.3.1: Basic base64(urlencode(id) ":" urlencode(secret)).
function clientOf(req) {
  const header = req.headers.authorization || "";
  if (!header.startsWith("Basic ")) {
    return null;
  }
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) {
    return null;
  }
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

async function main() {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  server.service.on("beforeTokenSigning", (token) => {
    token.payload.jti = crypto.randomUUID();
    token.payload.exp = token.payload.iat + lifetime;
  });
  server.service.on("beforeResponse", (response, req) => {
    const client = clientOf(req);
    if (!client || client.id !== clientId || client.secret !== clientSecret) {
      response.statusCode = 401;
      response.body = { error: "invalid_client", error_description: "client authentication failed" };
      console.log(`token-refused ${client ? "wrong client credentials" : "no Basic credentials"}`);
      return;
    }
    if (req.body.grant_type !== "client_credentials") {
      response.statusCode = 400;
      response.body = { error: "unsupported_grant_type" };
      console.log(`token-refused grant_type ${req.body.grant_type}`);
      return;
    }
    response.body.expires_in = lifetime;
    const claims = jose.decodeJwt(response.body.access_token);
    if (tokensFile) {
      fs.appendFileSync(tokensFile, `${response.body.access_token}\n`);
    }
    console.log(`token-issued ${claims.jti} ${claims.iat} ${claims.exp}`);
  });
  await server.start(0, "127.0.0.1");
  const issuer = server.issuer.url;
  const jwks = jose.createRemoteJWKSet(new URL(`${issuer}/jwks`));

  const revoked = new Set();
  let revokeNext = false;

  async function judge(req) {
    const header = req.headers.authorization || "";
    if (!header.startsWith("Bearer ")) {
      return { status: 401, jti: "-", reason: "no-bearer-token" };
    }
    let payload;
    try {
      ({ payload } = await jose.jwtVerify(header.slice(7), jwks, { issuer, clockTolerance: 0 }));
    } catch (e) {
      return { status: 401, jti: "-", reason: `invalid:${e.code || e.message}` };
    }
    if (revokeNext) {
      revokeNext = false;
      revoked.add(payload.jti);
      console.log(`revoked ${payload.jti}`);
    }
    if (revoked.has(payload.jti)) {
      return { status: 401, jti: payload.jti, reason: "revoked" };
    }
    return { status: 200, jti: payload.jti, reason: "ok" };
  }

  const receiver = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", async () => {
      if (req.url === "/control/revoke-next") {
        revokeNext = true;
        res.writeHead(204);
        res.end();
        return;
      }
      const verdict = await judge(req);
      const key = req.headers["idempotency-key"] || "-";
      console.log(`delivery ${key} ${verdict.jti} ${verdict.status} ${verdict.reason}`);
      res.writeHead(verdict.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: verdict.reason }));
    });
  });
  receiver.listen(0, "127.0.0.1", () => {
    console.log(`listening ${server.address().port} ${receiver.address().port}`);
  });
  process.on("SIGTERM", () => {
    receiver.close();
    server.stop().then(() => process.exit(0));
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
