import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { identityProblem } from "../../../src/services/drivers/mysql/MysqlConnect.ts"
import { describeTlsFailure, readTlsFiles } from "../../../src/services/drivers/TlsFiles.ts"

const dir = mkdtempSync(join(tmpdir(), "dbdesk-tlsfiles-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const settings = { name: "Ledger", host: "127.0.0.1", port: 3306, user: "u", sslMode: "verify-full" as const }
const session = (subjectaltname: string) => ({
  stream: { getPeerCertificate: () => ({ subject: { CN: "db" }, subjectaltname }) }
})

describe("TLS files and certificate failures in plain words", () => {
  it("verify-full by IP address: dbdesk checks the address against the certificate (mysql2 would check \"localhost\")", () => {
    expect(identityProblem(settings, session("DNS:localhost, IP Address:127.0.0.1"))).toBeUndefined()
    const problem = identityProblem(settings, session("DNS:localhost"))
    expect(describeTlsFailure(problem, { host: "127.0.0.1" })?.message).toBe(
      "TLS: the server's certificate is for localhost but the connection uses 127.0.0.1 (verify-full checks the name; connect by one of those names, or use verify-ca to check only the CA)"
    )
    expect(identityProblem({ ...settings, host: "db.example" }, session("DNS:localhost"))).toBeUndefined() // mysql2 checks names itself
    expect(identityProblem({ ...settings, sslMode: "verify-ca" }, session("DNS:localhost"))).toBeUndefined()
    expect(identityProblem(settings, { stream: {} })?.message).toContain("is not encrypted")
  })

  it("mysql2's HANDSHAKE_SSL_ERROR is read by OpenSSL's text: which check failed, which CA file", () => {
    const failure = (message: string) => Object.assign(new Error(message), { code: "HANDSHAKE_SSL_ERROR" })
    expect(
      describeTlsFailure(failure("self-signed certificate in certificate chain"), { host: "h", ca: "/ca.pem" })?.message
    ).toBe(
      "TLS: the server's certificate is not signed by the CA in /ca.pem (SELF_SIGNED_CERT_IN_CHAIN)"
    )
    expect(describeTlsFailure(failure("unable to get local issuer certificate"), { host: "h" })?.message).toContain(
      "not signed by a CA this system trusts"
    )
    expect(describeTlsFailure(failure("certificate has expired"), { host: "h" })?.message).toBe(
      "TLS: the server's certificate has expired"
    )
    expect(describeTlsFailure(new Error("connect ECONNREFUSED"), { host: "h" })).toBeUndefined()
  })

  it("a missing file, a file that is not PEM, and a certificate without its key are named before connecting", () => {
    const notPem = join(dir, "ca.der")
    writeFileSync(notPem, "binary")
    expect(() => readTlsFiles({ ca: join(dir, "absent.pem") })).toThrow(
      `the CA certificate file ${join(dir, "absent.pem")} cannot be read (it does not exist)`
    )
    expect(() => readTlsFiles({ ca: notPem })).toThrow(`the CA certificate file ${notPem} is not in PEM format`)
    expect(() => readTlsFiles({ key: "/k.pem" })).toThrow(
      "a client key (/k.pem) was given without its client certificate"
    )
    expect(readTlsFiles({})).toEqual({})
  })
})
