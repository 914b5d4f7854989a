import Database from "better-sqlite3"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { CuratedToolsFile } from "../../src/domain/CuratedTool.ts"
import { Schema } from "effect"
import { tempHome } from "../support/TestServer.ts"
import { runInProcess } from "./CliHarness.ts"

const shopHome = () => {
  const home = tempHome()
  const path = join(home, "shop.db")
  const db = new Database(path)
  db.exec(
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, region TEXT NOT NULL, placed_at TEXT NOT NULL); INSERT INTO orders (region, placed_at) VALUES ('north', '2026-01-05'), ('south', '2026-02-01')"
  )
  db.close()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({ version: 1, connections: [{ id: "shop", name: "Shop", type: "sqlite", path }] }),
    { mode: 0o600 }
  )
  return home
}
const tools = (home: string, ...args: Array<string>) => runInProcess("tools", ...args, "--home", home)
const stored = (home: string) =>
  Schema.decodeUnknownSync(CuratedToolsFile)(JSON.parse(readFileSync(join(home, "tools.json"), "utf8")))

describe("dbdesk tools list|add|test|remove", () => {
  it("add writes a checked, typed tool to tools.json; list shows it; test runs it with bound arguments; remove takes it out", async () => {
    const home = shopHome()
    const added = await tools(
      home,
      "add",
      "--name",
      "orders_by_region",
      "--connection",
      "Shop",
      "--description",
      "Orders of a region since a day",
      "--sql",
      "SELECT id FROM orders WHERE region = :region AND placed_at >= :since",
      "--param",
      "region:enum(north|south)=north",
      "--param",
      "since:date"
    )
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain("Added the tool orders_by_region on Shop: it reads")
    expect(stored(home).tools).toEqual([{
      name: "orders_by_region",
      description: "Orders of a region since a day",
      connection: "shop",
      sql: "SELECT id FROM orders WHERE region = :region AND placed_at >= :since",
      parameters: [{ name: "region", type: "enum", values: ["north", "south"], default: "north" }, {
        name: "since",
        type: "date"
      }]
    }])
    expect((await tools(home, "list")).stdout).toContain(
      "orders_by_region  connection shop  (region:enum=north, since:date)"
    )
    const tested = await tools(home, "test", "orders_by_region", "--arg", "since=2026-01-01", "--arg", "region=south")
    expect(tested.code, tested.stderr).toBe(0)
    expect(JSON.parse(tested.stdout).rows).toEqual([[2]])
    const injected = await tools(home, "test", "orders_by_region", "--arg", "since=2026-01-01' OR '1'='1")
    expect(injected.code).toBe(1)
    expect(injected.stderr).toContain("since: expected a date")
    expect((await tools(home, "remove", "orders_by_region")).code).toBe(0)
    expect(stored(home).tools).toEqual([])
  })

  it("add refuses what cannot become a tool, naming what is wrong, and leaves the file as it was", async () => {
    const home = shopHome()
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [["--name", "execute_query", "--sql", "SELECT 1"], "built-in"],
      [["--name", "has space", "--sql", "SELECT 1"], "letters, digits"],
      [["--name", "t", "--sql", "SELECT :a"], "not a declared parameter"],
      [["--name", "t", "--sql", "SELECT 1", "--param", "a:text"], "does not appear in the statement"],
      [["--name", "t", "--sql", "SELECT 1; SELECT 2"], "one statement"],
      [["--name", "t", "--sql", "SELECT :a", "--param", "a:decimal"], "the type is one of"],
      [["--name", "t", "--sql", "SELECT ? , :a", "--param", "a:text"], "parameter marker of the driver"],
      [["--name", "t", "--sql", "SELECT :a", "--param", "a:integer=ten"], "the default does not fit"],
      [["--name", "t", "--sql", "DROP TABLE orders"], "cannot drop or truncate"]
    ]
    for (const [args, message] of cases) {
      const result = await tools(home, "add", "--connection", "Shop", "--description", "d", ...args)
      expect(result.code, args.join(" ")).toBe(1)
      expect(result.stderr, args.join(" ")).toContain(message)
    }
    expect((await tools(home, "list")).stdout).toContain("No curated tools")
  })

  it("a write is classified when saved; tools test does not run it", async () => {
    const home = shopHome()
    const added = await tools(
      home,
      "add",
      "--name",
      "rename",
      "--connection",
      "shop",
      "--description",
      "d",
      "--sql",
      "UPDATE orders SET region = :to WHERE id = :id",
      "--param",
      "to:text",
      "--param",
      "id:integer"
    )
    expect(added.stdout).toContain("changes data: each call asks for approval")
    const tested = await tools(home, "test", "rename", "--arg", "to=x", "--arg", "id=1")
    expect(tested.stdout).toContain("does not run it")
    const db = new Database(join(home, "shop.db"))
    expect(db.prepare("SELECT region FROM orders WHERE id = 1").pluck().get()).toBe("north")
    db.close()
  })

  it("an invalid tools.json is refused with its line, not overwritten", async () => {
    const home = shopHome()
    writeFileSync(join(home, "tools.json"), "{\n  \"version\": 1,\n  \"tools\": [}\n")
    const listed = await tools(home, "list")
    expect(listed.code).toBe(1)
    expect(listed.stderr).toMatch(/line 3: /)
    expect(
      (await tools(home, "add", "--name", "t", "--connection", "Shop", "--description", "d", "--sql", "SELECT 1")).code
    ).toBe(1)
    expect(readFileSync(join(home, "tools.json"), "utf8")).toBe("{\n  \"version\": 1,\n  \"tools\": [}\n")
  })

  it("token create --tools stores the toolset", async () => {
    const home = shopHome()
    const created = await runInProcess(
      "token",
      "create",
      "--name",
      "lean one",
      "--access",
      "readOnly",
      "--tools",
      "lean",
      "--home",
      home
    )
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toContain("tools: lean")
    const listed = JSON.parse((await runInProcess("token", "list", "--json", "--home", home)).stdout)
    expect(listed[0].tools).toEqual(["lean"])
  })
})
