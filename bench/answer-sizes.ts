/**
 * D-67: what a model reads, in bytes. `tools/list` (read into the model's context at every session) and the
 * answers of execute_query at 1, 100 and 1,000 rows, with what the data fence adds to each (the fenced text content
 * against the JSON of its structuredContent, as both travel in the HTTP body). Part of `npm run bench`; on its own:
 * `npm run build -- app && npx tsx bench/answer-sizes.ts` (starts the built dbdesk on the sample, prints the table).
 */
import { spawnSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { requestBody, requestHeaders, responseOf, send, type RequestSpec } from "./mcp.ts"
import { startDbdesk } from "./servers/dbdesk.ts"

export interface AnswerSize {
  readonly answer: string
  readonly bytes: number
  /** What the fence adds to this answer (undefined for answers that carry no database values). */
  readonly fenceBytes?: number
}

const ask = async (url: string, token: string, spec: RequestSpec) => {
  const body = requestBody(spec)
  const reply = await send(url, body, requestHeaders(spec, token, body))
  const result = responseOf(reply)["result"] as Record<string, any> | undefined
  if (result === undefined) {
    throw new Error(`${spec.name ?? spec.method} did not answer a result: ${reply.body.slice(0, 300)}`)
  }
  return { bytes: Buffer.byteLength(reply.body), result }
}

/** The acceptance example of a curated tool (D-90) on the sample: two typed parameters, one an enum. */
const CURATED_EXAMPLE = {
  name: "orders_by_status",
  description: "Orders of one status placed since a time",
  sql: "SELECT id, status, total FROM orders WHERE status = :status AND order_date >= :since ORDER BY id",
  parameters: [{ name: "status", type: "enum", values: ["pending", "shipped", "delivered", "cancelled", "refunded"] }, {
    name: "since",
    type: "timestamp"
  }]
}

/**
 * `leanToken`: a token limited to the lean preset (no curated tools in the bench's support directory). With `home`
 * (the server's support directory), the lean list is measured again with one curated tool in tools.json: the
 * difference is that tool's own share (D-91: 1,500 bytes for the built-in three, plus each curated tool's schema).
 */
export const measureAnswerSizes = async (
  url: string,
  token: string,
  connectionId: string,
  leanToken?: string,
  home?: string
): Promise<ReadonlyArray<AnswerSize>> => {
  const listed = await ask(url, token, { method: "tools/list", id: 1 })
  const sizes: Array<AnswerSize> = [{
    answer: `tools/list (${(listed.result["tools"] as Array<unknown>).length} tools for this token)`,
    bytes: listed.bytes
  }]
  if (leanToken !== undefined) {
    const lean = await ask(url, leanToken, { method: "tools/list", id: 1 })
    sizes.push({
      answer: `tools/list, lean preset (${(lean.result["tools"] as Array<unknown>).length} tools)`,
      bytes: lean.bytes
    })
    if (home !== undefined) {
      writeFileSync(
        join(home, "tools.json"),
        JSON.stringify({ version: 1, tools: [{ ...CURATED_EXAMPLE, connection: connectionId }] }),
        { mode: 0o600 }
      )
      // The server re-reads tools.json at most once a second.
      let curated = lean
      for (
        let tries = 0;
        tries < 50 &&
        (curated.result["tools"] as Array<unknown>).length === (lean.result["tools"] as Array<unknown>).length;
        tries++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        curated = await ask(url, leanToken, { method: "tools/list", id: 1 })
      }
      sizes.push({
        answer: `tools/list, lean + 1 curated (${(curated.result["tools"] as Array<unknown>).length} tools)`,
        bytes: curated.bytes
      })
      rmSync(join(home, "tools.json"))
    }
  }
  for (const rows of [1, 100, 1000]) {
    const { bytes, result } = await ask(url, token, {
      method: "tools/call",
      name: "execute_query",
      arguments: { connection_id: connectionId, query: `SELECT * FROM orders LIMIT ${rows}` },
      id: 2
    })
    const text = String(result["content"][0].text)
    const fenceBytes = Buffer.byteLength(JSON.stringify(text)) -
      Buffer.byteLength(JSON.stringify(JSON.stringify(result["structuredContent"])))
    sizes.push({ answer: `execute_query ${rows} row${rows === 1 ? "" : "s"}`, bytes, fenceBytes })
  }
  return sizes
}

export const answerSizeLines = (sizes: ReadonlyArray<AnswerSize>): ReadonlyArray<string> => [
  "answer sizes, what a model reads (HTTP body bytes; D-66, D-67):",
  `  ${"answer".padEnd(40)} ${"bytes".padStart(8)}  fence`,
  ...sizes.map((size) =>
    `  ${size.answer.padEnd(40)} ${String(size.bytes).padStart(8)}  ${
      size.fenceBytes === undefined ? "-" : `+${size.fenceBytes}`
    }`
  )
]

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dbdesk = await startDbdesk()
  try {
    const created = spawnSync(process.execPath, [
      fileURLToPath(new URL("../bin/dbdesk.mjs", import.meta.url)),
      "token",
      "create",
      "--name",
      "lean bench",
      "--access",
      "readOnly",
      "--tools",
      "lean",
      "--home",
      dbdesk.home
    ], { encoding: "utf8" })
    const leanToken = /^(dbd_\S+)$/m.exec(created.stdout)?.[1]
    for (
      const line of answerSizeLines(
        await measureAnswerSizes(dbdesk.url, dbdesk.token, dbdesk.connectionId, leanToken, dbdesk.home)
      )
    ) process.stdout.write(`${line}\n`)
  } finally {
    await dbdesk.stop()
  }
}
