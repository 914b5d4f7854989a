import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"

export interface Certificate {
  readonly key: string
  readonly cert: string
}

/** A fresh self-signed certificate for 127.0.0.1, made by `openssl` in a temporary directory. */
export const selfSignedCertificate = async (): Promise<Certificate> => {
  const directory = await mkdtemp(join(tmpdir(), "engine-tls-"))
  try {
    const keyPath = join(directory, "key.pem")
    const certPath = join(directory, "cert.pem")
    await promisify(execFile)("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-sha256",
      "-days",
      "1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1"
    ])
    return { key: await readFile(keyPath, "utf8"), cert: await readFile(certPath, "utf8") }
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
}
