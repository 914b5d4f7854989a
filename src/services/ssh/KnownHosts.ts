// Host keys as OpenSSH keeps them: known_hosts lines (plain, wildcard and hashed `|1|salt|hash` host patterns, the
// @revoked marker) read from the user's file and from dbdesk's own, which is the only one dbdesk writes.
import { createHash, createHmac } from "node:crypto"
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs"

/** What the files say about a host's key. */
export type HostKeyState =
  | { readonly kind: "known"; readonly file: string }
  | { readonly kind: "unknown" }
  | { readonly kind: "changed"; readonly file: string; readonly known: ReadonlyArray<string> }
  | { readonly kind: "revoked"; readonly file: string }

/** OpenSSH's fingerprint of a key blob: `SHA256:` and the unpadded base64 of its SHA-256. */
export const fingerprintOf = (key: Buffer): string =>
  `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`

/** The key type a blob names (its first SSH string), e.g. `ssh-ed25519`. */
export const keyTypeOf = (key: Buffer): string => {
  if (key.length < 4) return ""
  const length = key.readUInt32BE(0)
  return key.subarray(4, 4 + length).toString("latin1")
}

/** How OpenSSH names a host in known_hosts: `host`, or `[host]:port` off port 22. */
export const hostEntryName = (host: string, port: number): string => (port === 22 ? host : `[${host}]:${port}`)

const wildcard = (pattern: string, name: string): boolean => {
  const expression = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")
  return new RegExp(`^${expression}$`, "i").test(name)
}

const patternMatches = (pattern: string, name: string): boolean => {
  if (pattern.startsWith("|1|")) {
    const [, , salt, hash] = pattern.split("|")
    if (salt === undefined || hash === undefined) return false
    return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash
  }
  return wildcard(pattern, name)
}

/** A comma-separated pattern list matches when some pattern does and no negated one does. */
const hostsMatch = (patterns: string, name: string): boolean => {
  let matched = false
  for (const pattern of patterns.split(",")) {
    if (pattern.startsWith("!")) {
      if (patternMatches(pattern.slice(1), name)) return false
    } else if (patternMatches(pattern, name)) matched = true
  }
  return matched
}

interface Entry {
  readonly marker: string | undefined
  readonly key: Buffer
}

const entriesFor = (file: string, name: string): Array<Entry> => {
  if (!existsSync(file)) return []
  const found: Array<Entry> = []
  for (const raw of readFileSync(file, "utf8").split("\n")) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#")) continue
    const fields = line.split(/\s+/)
    const marker = fields[0]?.startsWith("@") === true ? fields.shift() : undefined
    const [patterns, , key] = fields
    if (patterns === undefined || key === undefined || marker === "@cert-authority") continue
    if (hostsMatch(patterns, name)) found.push({ marker, key: Buffer.from(key, "base64") })
  }
  return found
}

/**
 * The key's state for `host:port` across `files` (dbdesk's own first): known when some file lists this key, revoked
 * when one marks it @revoked, changed when a file lists another key of the same type, else unknown. A host known
 * only with keys of other types is unknown: the user is asked, shown the fingerprint.
 */
export const hostKeyState = (files: ReadonlyArray<string>, host: string, port: number, key: Buffer): HostKeyState => {
  const name = hostEntryName(host, port)
  const type = keyTypeOf(key)
  let changed: HostKeyState | undefined
  for (const file of files) {
    for (const entry of entriesFor(file, name)) {
      if (entry.marker === "@revoked" && entry.key.equals(key)) return { kind: "revoked", file }
    }
  }
  for (const file of files) {
    const entries = entriesFor(file, name).filter((entry) => entry.marker === undefined)
    if (entries.some((entry) => entry.key.equals(key))) return { kind: "known", file }
    const others = entries.filter((entry) => keyTypeOf(entry.key) === type)
    if (others.length > 0 && changed === undefined) {
      changed = {
        kind: "changed",
        file,
        known: others.map((entry) => fingerprintOf(entry.key))
      }
    }
  }
  return changed ?? { kind: "unknown" }
}

/** Records the key in dbdesk's own file (0600), replacing what it listed for the host before. */
export const trustHostKey = (file: string, host: string, port: number, key: Buffer): void => {
  const name = hostEntryName(host, port)
  const kept = existsSync(file)
    ? readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "" && line.split(/\s+/)[0] !== name)
    : []
  const line = `${name} ${keyTypeOf(key)} ${key.toString("base64")}`
  if (kept.length === 0 && !existsSync(file)) appendFileSync(file, `${line}\n`, { mode: 0o600 })
  else writeFileSync(file, `${[...kept, line].join("\n")}\n`, { mode: 0o600 })
}
