// A throwaway certificate authority for the TLS tests, made with openssl in a temp directory: a CA, server
// certificates for the names a test asks for, client certificates (the common name is the account), keys that
// may be encrypted with a passphrase. Everything is removed by `remove`.
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const OPENSSL = "/usr/bin/openssl"

export interface Issued {
  readonly cert: string
  readonly key: string
}

export interface TestCa {
  readonly dir: string
  /** The CA certificate file (PEM). */
  readonly ca: string
  /** A server certificate for these subjectAltNames (e.g. `DNS:localhost`, `IP:127.0.0.1`). */
  readonly server: (name: string, altNames: ReadonlyArray<string>) => Issued
  /** A client certificate whose common name is `user`; its key encrypted when a passphrase is given. */
  readonly client: (user: string, passphrase?: string) => Issued
  readonly remove: () => void
}

const run = (args: ReadonlyArray<string>) => execFileSync(OPENSSL, args, { stdio: ["ignore", "pipe", "pipe"] })

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

/** A new CA named `name`; `makeCa("other")` gives a second, unrelated one for "wrong CA" tests. */
export const makeCa = (name = "dbdesk test CA"): TestCa => {
  const dir = mkdtempSync(join(tmpdir(), "dbdesk-ca-"))
  const ca = join(dir, "ca.crt")
  const caKey = join(dir, "ca.key")
  run(["req", "-x509", ...ecKey, "-keyout", caKey, "-out", ca, "-days", "2", "-subj", `/CN=${name}`])
  let serial = 1
  const issue = (file: string, subject: string, extensions: string): Issued => {
    const key = join(dir, `${file}.key`)
    const csr = join(dir, `${file}.csr`)
    const cert = join(dir, `${file}.crt`)
    const ext = join(dir, `${file}.ext`)
    writeFileSync(ext, extensions)
    run(["req", "-new", ...ecKey, "-keyout", key, "-out", csr, "-subj", subject])
    run([
      "x509",
      "-req",
      "-in",
      csr,
      "-CA",
      ca,
      "-CAkey",
      caKey,
      "-set_serial",
      String(serial++),
      "-out",
      cert,
      "-days",
      "2",
      "-extfile",
      ext
    ])
    return { cert, key }
  }
  return {
    dir,
    ca,
    server: (name, altNames) =>
      issue(
        `server-${serial}`,
        `/CN=${name}`,
        `basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=${altNames.join(",")}\n`
      ),
    client: (user, passphrase) => {
      const issued = issue(
        `client-${serial}`,
        `/CN=${user}`,
        "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n"
      )
      if (passphrase === undefined) return issued
      const encrypted = `${issued.key}.enc`
      run([
        "pkcs8",
        "-topk8",
        "-in",
        issued.key,
        "-out",
        encrypted,
        "-v2",
        "aes-256-cbc",
        "-passout",
        `pass:${passphrase}`
      ])
      return { cert: issued.cert, key: encrypted }
    },
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}
