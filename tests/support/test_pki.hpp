#pragma once

// Test certificates made at test time with OpenSSL's API (no openssl CLI, nothing checked in):
// a CA, server certificates signed by it (good, expired, for another host), a self-signed one
// (an unknown CA), and a client certificate for mTLS, written as PEM files in a directory.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace courier::testing {

struct pki_key_deleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct pki_cert_deleter {
  void operator()(X509* c) const { X509_free(c); }
};
struct pki_file_deleter {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using pki_key = std::unique_ptr<EVP_PKEY, pki_key_deleter>;
using pki_cert = std::unique_ptr<X509, pki_cert_deleter>;

// A certificate and its key as files.
struct pem_pair {
  std::filesystem::path cert;
  std::filesystem::path key;
};

class test_pki {
 public:
  // What a leaf certificate says.
  struct leaf {
    std::string common_name;
    std::vector<std::string> alt_names;  // "DNS:localhost", "IP:127.0.0.1"
    long not_before_days = -1;           // relative to now
    long not_after_days = 30;
    bool client = false;  // extendedKeyUsage clientAuth instead of serverAuth
  };

  // Makes the CA and writes <dir>/ca.pem.
  explicit test_pki(std::filesystem::path dir) : dir_(std::move(dir)) {
    ca_key_ = make_key();
    ca_ = make_cert("courier test CA", {}, -1, 30, ca_key_.get(), nullptr, nullptr, true, false);
    write_cert(ca_.get(), dir_ / "ca.pem");
  }

  std::filesystem::path ca_file() const { return dir_ / "ca.pem"; }

  // A leaf signed by the CA, written as <dir>/<name>.pem and <name>.key.
  pem_pair issue(const std::string& name, const leaf& l) const {
    auto key = make_key();
    auto cert = make_cert(l.common_name, l.alt_names, l.not_before_days, l.not_after_days,
                          key.get(), ca_.get(), ca_key_.get(), false, l.client);
    return write(name, cert.get(), key.get());
  }

  // A self-signed leaf: its issuer is no CA anybody trusts.
  pem_pair self_signed(const std::string& name, const leaf& l) const {
    auto key = make_key();
    auto cert = make_cert(l.common_name, l.alt_names, l.not_before_days, l.not_after_days,
                          key.get(), nullptr, nullptr, false, l.client);
    return write(name, cert.get(), key.get());
  }

  // The usual set: valid for 127.0.0.1 and localhost.
  pem_pair server() const {
    return issue("server", {"localhost", {"DNS:localhost", "IP:127.0.0.1", "IP:::1"}});
  }
  pem_pair expired_server() const {
    return issue("expired", {"localhost", {"DNS:localhost", "IP:127.0.0.1"}, -30, -1});
  }
  pem_pair wrong_host_server() const {
    return issue("wrong-host", {"partner.example", {"DNS:partner.example", "IP:192.0.2.7"}});
  }
  pem_pair unknown_ca_server() const {
    return self_signed("unknown-ca", {"localhost", {"DNS:localhost", "IP:127.0.0.1"}});
  }
  pem_pair client() const { return issue("client", {"courier test client", {}, -1, 30, true}); }

 private:
  static void check(bool ok, const char* what) {
    if (!ok) {
      throw std::runtime_error(std::string{"test_pki: "} + what + " failed");
    }
  }

  static pki_key make_key() {
    pki_key key{EVP_EC_gen("P-256")};
    check(key != nullptr, "EVP_EC_gen");
    return key;
  }

  static void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    check(ext != nullptr, "X509V3_EXT_conf_nid");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }

  pki_cert make_cert(const std::string& cn, const std::vector<std::string>& alt_names,
                     long not_before_days, long not_after_days, EVP_PKEY* key, X509* issuer,
                     EVP_PKEY* issuer_key, bool is_ca, bool client) const {
    pki_cert cert{X509_new()};
    check(cert != nullptr, "X509_new");
    X509_set_version(cert.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial_++);
    X509_gmtime_adj(X509_getm_notBefore(cert.get()), not_before_days * 86400);
    X509_gmtime_adj(X509_getm_notAfter(cert.get()), not_after_days * 86400);
    X509_set_pubkey(cert.get(), key);
    X509_NAME* name = X509_get_subject_name(cert.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509* signer = issuer != nullptr ? issuer : cert.get();
    X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
    if (is_ca) {
      add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
      add_ext(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
      add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
      add_ext(cert.get(), signer, NID_ext_key_usage, client ? "clientAuth" : "serverAuth");
    }
    add_ext(cert.get(), signer, NID_subject_key_identifier, "hash");
    if (!alt_names.empty()) {
      std::string san;
      for (const auto& n : alt_names) {
        san += (san.empty() ? "" : ",") + n;
      }
      add_ext(cert.get(), signer, NID_subject_alt_name, san);
    }
    check(X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) > 0,
          "X509_sign");
    return cert;
  }

  static std::unique_ptr<std::FILE, pki_file_deleter> open(const std::filesystem::path& p) {
    std::unique_ptr<std::FILE, pki_file_deleter> f{std::fopen(p.c_str(), "wb")};
    check(f != nullptr, "fopen");
    return f;
  }

  static void write_cert(X509* cert, const std::filesystem::path& p) {
    check(PEM_write_X509(open(p).get(), cert) == 1, "PEM_write_X509");
  }

  pem_pair write(const std::string& name, X509* cert, EVP_PKEY* key) const {
    pem_pair out{dir_ / (name + ".pem"), dir_ / (name + ".key")};
    write_cert(cert, out.cert);
    check(
        PEM_write_PrivateKey(open(out.key).get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM_write_PrivateKey");
    return out;
  }

  std::filesystem::path dir_;
  pki_key ca_key_;
  pki_cert ca_;
  mutable long serial_ = 1;
};

}  // namespace courier::testing
