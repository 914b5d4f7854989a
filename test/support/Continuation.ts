// Reading a capped answer to its end with the official client: execute_query, then fetch_more while the answer
// carries continuation.handle. Shared by the PostgreSQL, MariaDB and SQLite suites.
import type { Client } from "@modelcontextprotocol/client"
import { expect } from "vitest"
import { makeRandom } from "../../src/domain/SeededRandom.ts"
import { PER_CONNECTION } from "../../src/services/Continuations.ts"

export interface Page {
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  readonly columns: ReadonlyArray<string>
  readonly truncated: boolean
  readonly message: string | undefined
  readonly handle: string | undefined
}

export const pageOf = (result: any): Page => {
  expect(result.isError, JSON.stringify(result).slice(0, 2000)).toBe(false)
  const content = result.structuredContent
  return {
    rows: content.rows,
    columns: content.columns,
    truncated: content.is_truncated,
    message: content.status_message,
    handle: content.continuation?.handle
  }
}

export const query = async (client: Client, connectionId: string, sql: string, maxRows?: number): Promise<Page> =>
  pageOf(
    await client.callTool({
      name: "execute_query",
      arguments: { connection_id: connectionId, query: sql, ...(maxRows === undefined ? {} : { max_rows: maxRows }) }
    })
  )

export const fetchMore = (client: Client, handle: string, maxRows?: number) =>
  client.callTool({
    name: "fetch_more",
    arguments: { handle, ...(maxRows === undefined ? {} : { max_rows: maxRows }) }
  })

/** browse_table's first page, then fetch_more to the end: every row read once, in order. */
export const browseToEnd = async (client: Client, connectionId: string, args: Record<string, unknown>) => {
  const pages: Array<Page> = [
    pageOf(await client.callTool({ name: "browse_table", arguments: { connection_id: connectionId, ...args } }))
  ]
  for (let page = pages[0]!; page.handle !== undefined;) {
    expect(page.message).toContain("fetch_more")
    page = pageOf(await fetchMore(client, page.handle))
    pages.push(page)
    expect(pages.length).toBeLessThan(1000)
  }
  return { pages, rows: pages.flatMap((page) => page.rows) }
}

/** Every page of `sql` from the first answer to the last (which has no handle); each cut page says how to go on. */
export const readToEnd = async (
  client: Client,
  connectionId: string,
  sql: string,
  maxRows: number,
  nextRows?: number
) => {
  const pages: Array<Page> = [await query(client, connectionId, sql, maxRows)]
  for (let page = pages[0]!; page.handle !== undefined;) {
    expect(page.truncated).toBe(true)
    expect(page.message).toContain("fetch_more")
    page = pageOf(await fetchMore(client, page.handle, nextRows))
    pages.push(page)
    expect(pages.length).toBeLessThan(1000)
  }
  const last = pages[pages.length - 1]!
  expect(last.truncated).toBe(false)
  return { pages, rows: pages.flatMap((page) => page.rows) }
}

/** A handle that is spent, expired, closed or another caller's: a tool error that tells nothing more. */
export const expectNoHandle = (result: any): void => {
  expect(result.isError).toBe(true)
  expect(result.structuredContent.error.code).toBe("not_found")
  expect(result.structuredContent.error.message).toMatch(/no open result with this handle/)
}

/**
 * Property (a model of the open handles): whatever the interleaving of two callers opening and reading on one
 * connection, a handle never reads for another caller (not_found, and the owner's read goes on unharmed), a handle
 * closed to keep the per-connection bound (oldest first) is not_found for its owner too, and each read is in order.
 */
export const handlesStayWithTheirCaller = async (
  clients: readonly [Client, Client],
  connectionId: string,
  sqlOf: (caller: number) => string,
  seeds: ReadonlyArray<number>
) => {
  for (const seed of seeds) {
    const random = makeRandom(seed)
    const open: Array<{ owner: number; handle: string; seen: Array<unknown> }> = []
    const closed: Array<{ owner: number; handle: string }> = []
    for (let step = 0; step < 14; step++) {
      const caller = random.int(0, 1)
      const others = open.filter((entry) => entry.owner !== caller)
      const mine = open.filter((entry) => entry.owner === caller)
      const mineClosed = closed.filter((entry) => entry.owner === caller)
      const choice = random.next()
      if (open.length === 0 || choice < 0.3) {
        const page = await query(clients[caller]!, connectionId, sqlOf(caller), 3)
        expect(page.handle).toBeDefined()
        open.push({ owner: caller, handle: page.handle!, seen: page.rows.map((row) => row[0]) })
        while (open.length > PER_CONNECTION) closed.push(open.shift()!)
      } else if (others.length > 0 && choice < 0.55) {
        expectNoHandle(await fetchMore(clients[caller]!, random.pick(others).handle))
      } else if (mineClosed.length > 0 && choice < 0.65) {
        expectNoHandle(await fetchMore(clients[caller]!, random.pick(mineClosed).handle))
      } else if (mine.length > 0) {
        const entry = random.pick(mine)
        const page = pageOf(await fetchMore(clients[caller]!, entry.handle))
        expect(page.rows.every((row) => String(row[1]).startsWith(`caller${caller}`))).toBe(true)
        entry.seen.push(...page.rows.map((row) => row[0]))
        expect(entry.seen).toEqual([...entry.seen].sort((a, b) => Number(a) - Number(b)))
        closed.push({ owner: caller, handle: entry.handle })
        if (page.handle === undefined) open.splice(open.indexOf(entry), 1)
        else entry.handle = page.handle
      }
    }
    // What is left open is closed by reading it to its end, so the next seed starts with none.
    for (const entry of open) {
      for (let handle: string | undefined = entry.handle; handle !== undefined;) {
        handle = pageOf(await fetchMore(clients[entry.owner]!, handle, 1000)).handle
      }
    }
  }
}
