// The TLS files of a PostgreSQL or MySQL/MariaDB connection (CA certificate, client certificate and key), read when
// a session opens, and the plain-words reading of a certificate check that failed: which check, which file, which name.
import { readFileSync } from "node:fs"

export interface TlsFiles {
  /** CA certificate file the server's certificate must be signed by (verify-ca, verify-full). */
  readonly ca?: string
  readonly cert?: string
  readonly key?: string
  /** The client key's passphrase (a secret: never in a message). */
  readonly passphrase?: string
}

export interface TlsMaterial {
  readonly ca?: Buffer
  readonly cert?: Buffer
  readonly key?: Buffer
  readonly passphrase?: string
}

/** A TLS file that cannot be used; its message names the file and the field, never a secret. */
export class TlsFileProblem extends Error {
  readonly code = "ETLSFILE"
  readonly fatal = true
}

const readPem = (path: string, what: string): Buffer => {
  let content: Buffer
  try {
    content = readFileSync(path)
  } catch (error) {
    const code = (error as { code?: string }).code
    throw new TlsFileProblem(
      `the ${what} file ${path} cannot be read (${
        code === "ENOENT" ? "it does not exist" : code === "EACCES" ? "permission denied" : code ?? "unreadable"
      })`
    )
  }
  if (!content.includes("-----BEGIN")) {
    throw new TlsFileProblem(`the ${what} file ${path} is not in PEM format (it has no -----BEGIN line)`)
  }
  return content
}

/** Reads the files (fails with a TlsFileProblem); a client certificate needs its key and a key its certificate. */
export const readTlsFiles = (files: TlsFiles): TlsMaterial => {
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new TlsFileProblem(
      files.cert === undefined
        ? `a client key (${files.key}) was given without its client certificate`
        : `a client certificate (${files.cert}) was given without its key`
    )
  }
  return {
    ...(files.ca === undefined ? {} : { ca: readPem(files.ca, "CA certificate") }),
    ...(files.cert === undefined ? {} : { cert: readPem(files.cert, "client certificate") }),
    ...(files.key === undefined ? {} : { key: readPem(files.key, "client key") }),
    ...(files.passphrase === undefined ? {} : { passphrase: files.passphrase })
  }
}

const NOT_SIGNED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED"
])

/** OpenSSL's verify texts, for clients that replace the error's code with their own (mysql2's HANDSHAKE_SSL_ERROR). */
const CODE_OF_TEXT: ReadonlyArray<readonly [RegExp, string]> = [
  [/Hostname\/IP does not match certificate's altnames/, "ERR_TLS_CERT_ALTNAME_INVALID"],
  [/unable to verify the first certificate/, "UNABLE_TO_VERIFY_LEAF_SIGNATURE"],
  [/unable to get local issuer certificate/, "UNABLE_TO_GET_ISSUER_CERT_LOCALLY"],
  [/unable to get issuer certificate/, "UNABLE_TO_GET_ISSUER_CERT"],
  [/self[- ]signed certificate in certificate chain/, "SELF_SIGNED_CERT_IN_CHAIN"],
  [/self[- ]signed certificate/, "DEPTH_ZERO_SELF_SIGNED_CERT"],
  [/certificate signature failure/, "CERT_SIGNATURE_FAILURE"],
  [/certificate has expired/, "CERT_HAS_EXPIRED"],
  [/certificate is not yet valid/, "CERT_NOT_YET_VALID"]
]

const codeOf = (error: { readonly code?: string; readonly message?: string }): string => {
  if (error.code !== undefined && error.code !== "HANDSHAKE_SSL_ERROR") return error.code
  return CODE_OF_TEXT.find(([text]) => text.test(error.message ?? ""))?.[1] ?? error.code ?? ""
}

interface PeerCertificate {
  readonly subject?: { readonly CN?: string | ReadonlyArray<string> }
  readonly subjectaltname?: string
}

/** The names a certificate is for: its subjectAltName entries (DNS and IP), else its common name. */
const namesOf = (cert: PeerCertificate | undefined): string => {
  const alt = (cert?.subjectaltname ?? "").split(",").map((entry) => entry.trim().replace(/^(DNS|IP Address):/, ""))
    .filter((entry) => entry !== "")
  const cn = cert?.subject?.CN
  const names = alt.length > 0 ? alt : cn === undefined ? [] : typeof cn === "string" ? [cn] : [...cn]
  return names.length === 0 ? "no name" : names.join(", ")
}

export interface TlsContext {
  /** The host the connection uses. */
  readonly host: string
  readonly ca?: string
}

/** A client key or certificate OpenSSL refused (wrong passphrase, key not matching the certificate). */
const clientFileProblem = (
  error: { readonly code?: string; readonly message?: string },
  files: TlsFiles
): string | undefined => {
  const text = `${error.code ?? ""} ${error.message ?? ""}`
  if (/BAD_DECRYPT|bad decrypt|bad password/i.test(text)) {
    return `the client key ${files.key ?? ""} cannot be decrypted: its passphrase is missing or wrong`
  }
  if (/key values mismatch|KEY_VALUES_MISMATCH/i.test(text)) {
    return `the client key ${files.key ?? ""} does not belong to the client certificate ${files.cert ?? ""}`
  }
  if (/PEM routines|NO_START_LINE|ERR_OSSL_PEM/i.test(text)) {
    return `a TLS file cannot be read as PEM (${
      [files.ca, files.cert, files.key].filter((file) => file !== undefined).join(", ")
    })`
  }
  return undefined
}

/**
 * The plain-words reading of a TLS failure, or undefined when the error is not one: which check failed and
 * which name or file it concerns. The result keeps the original code so callers still see a connection failure.
 */
export const describeTlsFailure = (
  error: unknown,
  context: TlsContext & { readonly files?: TlsFiles }
): Error | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const failure = error as {
    readonly code?: string
    readonly message?: string
    readonly cert?: PeerCertificate
    readonly host?: string
  }
  const code = codeOf(failure)
  let message: string | undefined
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    message = `the server's certificate is for ${
      namesOf(failure.cert)
    } but the connection uses ${context.host} (verify-full checks the name; connect by one of those names, or use verify-ca to check only the CA)`
  } else if (NOT_SIGNED.has(code)) {
    message = context.ca === undefined
      ? `the server's certificate is not signed by a CA this system trusts (${code}); give the CA certificate file that signed it`
      : `the server's certificate is not signed by the CA in ${context.ca} (${code})`
  } else if (code === "CERT_HAS_EXPIRED") {
    message = "the server's certificate has expired"
  } else if (code === "CERT_NOT_YET_VALID") {
    message = "the server's certificate is not valid yet (check the clocks)"
  } else if (context.files !== undefined) {
    message = clientFileProblem(failure, context.files)
  }
  if (message === undefined) return undefined
  return Object.assign(new Error(`TLS: ${message}`), { code: "ETLS", fatal: true })
}
