// The secrets scan and the file-mode check of the reliability suite (D-89). Every part registers each password, API key and token
// it configured or was given (Run.ts registerSecret); the scan reads every file the run wrote (serve logs, support
// directories with activity.db, captured answers of the MCP and UI APIs, bench output) and reports each place a secret
// appears outside the store it belongs in. The check of modes: every support directory is 0700 and each file in it 0600.
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"

export interface Secret {
  readonly part: string
  readonly kind: string
  readonly value: string
}

export interface Finding {
  readonly file: string
  readonly part: string
  readonly kind: string
  readonly form: string
  readonly count: number
}

export const readSecrets = (root: string): ReadonlyArray<Secret> => {
  const file = join(root, "secrets.jsonl")
  if (!existsSync(file)) return []
  const seen = new Map<string, Secret>()
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue
    const secret = JSON.parse(line) as Secret
    if (!seen.has(secret.value)) seen.set(secret.value, secret)
  }
  return [...seen.values()]
}

/** The spellings a leak could take: as is, base64 and base64url (a Basic header, a wrapped value), URL-encoded. */
const formsOf = (value: string): ReadonlyArray<readonly [string, string]> => {
  const forms = new Map<string, string>([[value, "plain"]])
  for (
    const [form, text] of [["base64", Buffer.from(value).toString("base64")], [
      "base64url",
      Buffer.from(value).toString("base64url")
    ], ["url-encoded", encodeURIComponent(value)]] as const
  ) {
    if (!forms.has(text)) forms.set(text, form)
  }
  return [...forms.entries()].map(([text, form]) => [form, text] as const)
}

/**
 * Where a secret is kept on purpose: a connection's password or API key in its 0600 connections.json, the bridge token
 * in the handshake file (D-37), the Default token printed once by serve's first start and the UI launch
 * key printed at each start (both on serve's own output, which the run keeps as serve.log), and the list of secrets.
 */
const kept = (file: string, secret: Secret, count: number): boolean => {
  const name = basename(file)
  if (name === "secrets.jsonl") return true
  if (name === "connections.json") return secret.kind.startsWith("connection ")
  if (name === "mcp-handshake.json") return secret.kind === "bridge token"
  if (name === "serve.log") return (secret.kind === "token Default" && count === 1) || secret.kind === "ui key"
  return false
}

const filesUnder = (directory: string): ReadonlyArray<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return filesUnder(path)
    return entry.isFile() ? [path] : []
  })

const occurrences = (haystack: Buffer, needle: Buffer): number => {
  let count = 0
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++
  return count
}

/** Every file under `roots` (recursively) that holds a secret outside its store, and how many files were read. */
export const scanForSecrets = (roots: ReadonlyArray<string>, secrets: ReadonlyArray<Secret>) => {
  const findings: Array<Finding> = []
  let files = 0
  let bytes = 0
  for (const root of roots.filter((path) => existsSync(path))) {
    for (const file of lstatSync(root).isDirectory() ? filesUnder(root) : [root]) {
      const content = readFileSync(file)
      files++
      bytes += content.length
      for (const secret of secrets) {
        for (const [form, text] of formsOf(secret.value)) {
          const count = occurrences(content, Buffer.from(text))
          if (count > 0 && !(form === "plain" && kept(file, secret, count))) {
            findings.push({ file, part: secret.part, kind: secret.kind, form, count })
          }
        }
      }
    }
  }
  return { findings, files, bytes }
}

/** A support directory: one that holds dbdesk's settings or tokens. */
const supportDirectories = (root: string): ReadonlyArray<string> => {
  if (!existsSync(root)) return []
  const entries = readdirSync(root, { withFileTypes: true })
  const here =
    entries.some((entry) => entry.isFile() && (entry.name === "tokens.json" || entry.name === "settings.json"))
      ? [root]
      : []
  return [
    ...here,
    ...entries.filter((entry) => entry.isDirectory()).flatMap((entry) => supportDirectories(join(root, entry.name)))
  ]
}

/** Each support directory under `root` that is not 0700, and each file in one that is not 0600. */
export const fileModeProblems = (root: string) => {
  const problems: Array<string> = []
  let checked = 0
  for (const directory of supportDirectories(root)) {
    const mode = lstatSync(directory).mode & 0o777
    checked++
    if (mode !== 0o700) problems.push(`${directory} is ${mode.toString(8)}, not 700`)
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (!entry.isFile()) continue
      const fileMode = lstatSync(join(directory, entry.name)).mode & 0o777
      checked++
      if (fileMode !== 0o600) problems.push(`${join(directory, entry.name)} is ${fileMode.toString(8)}, not 600`)
    }
  }
  return { problems, checked }
}
