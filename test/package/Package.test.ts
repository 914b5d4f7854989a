import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runExampleHost } from "../support/ExampleHost.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { type InstalledPackage, npm, packAndInstall, ROOT } from "../support/PackedPackage.ts"
import {
  anyInDeclarations,
  CONSUMER_SOURCE,
  CONSUMER_TSCONFIG,
  CONSUMER_TSCONFIG_WITHOUT_NODE
} from "../support/PublicTypes.ts"
import { tempHome } from "../support/TestServer.ts"
import { BUILT_IN_TOOL_NAMES } from "../../src/domain/ToolNames.ts"

/**
 * D-76, D-77: the package as a user gets it, packed once for every test here (test/support/PackedPackage.ts):
 * the installed `dbdesk` and `dbdesk-mcp` against a temporary support directory, and the installed library as an
 * embedding host and a TypeScript consumer use it.
 */
let pkg: InstalledPackage
let project: string
let installed: string
const bin = (name: string) => pkg.bin(name)

const children: Array<ChildProcess> = []

/** The consumer compiles (about 15 s of tsc each) run beside the other tests; their tests wait for them. */
let consumerCompile: Promise<string>
let consumerWithoutNodeCompile: Promise<string>

const compile = (project: string, tsconfig: string, ...flags: Array<string>) =>
  promisify(execFile)(process.execPath, [
    join(ROOT, "node_modules", "typescript", "bin", "tsc"),
    "-p",
    join(project, tsconfig),
    ...flags
  ], { cwd: project }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? String(error)
  )

beforeAll(async () => {
  pkg = await packAndInstall()
  project = pkg.project
  installed = pkg.installed
  writeFileSync(join(project, "consumer.ts"), CONSUMER_SOURCE)
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG(join(ROOT, "node_modules", "@types"))))
  writeFileSync(join(project, "tsconfig.without-node.json"), JSON.stringify(CONSUMER_TSCONFIG_WITHOUT_NODE))
  consumerCompile = compile(project, "tsconfig.json")
  consumerWithoutNodeCompile = consumerCompile.then(() => compile(project, "tsconfig.without-node.json", "--listFiles"))
}, 240_000)

afterAll(() => {
  for (const child of children) child.kill("SIGKILL")
})

/** Starts the installed `dbdesk serve`; resolves with its MCP URL and the Default token it prints. */
const serve = (home: string) =>
  new Promise<{ url: string; token: string; child: ChildProcess }>((resolve, reject) => {
    const child = spawn(bin("dbdesk"), ["serve", "--port", "0", "--home", home], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"]
    })
    children.push(child)
    let output = ""
    const seen = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1]
      const token = /^(dbd_\S+)$/m.exec(output)?.[1]
      if (url !== undefined && token !== undefined) resolve({ url, token, child })
    }
    child.stdout.on("data", seen)
    child.stderr.on("data", seen)
    child.once("exit", (code) => reject(new Error(`the installed dbdesk serve exited (${code}):\n${output}`)))
  })

/** Sends one line to the installed bridge and resolves with its first stdout line; stdin stays open until then. */
const askBridge = (home: string, message: unknown) =>
  new Promise<any>((resolve, reject) => {
    const child = spawn(bin("dbdesk-mcp"), ["--home", home], { cwd: project, stdio: ["pipe", "pipe", "pipe"] })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const line = stdout.split("\n")[0]!
      if (stdout.includes("\n")) {
        child.stdin.end()
        resolve(JSON.parse(line))
      }
    })
    child.once("exit", (code) =>
      reject(new Error(`the installed dbdesk-mcp exited (${code}) before answering:\n${stderr}`)))
    child.stdin.write(`${JSON.stringify(message)}\n`)
  })

describe("the npm package (D-76)", () => {
  it("the tarball holds the built programs, library, types and UI, the bins, README and LICENSE; no sources or tests; under 3 MiB", () => {
    const paths = pkg.packed.files.map((file) => file.path)
    const allowed =
      /^(package\.json|README\.md|LICENSE|bin\/(dbdesk|dbdesk-mcp|not-built)\.mjs|dist\/(app|lib|types|ui)\/.+)$/
    expect(paths.filter((path) => !allowed.test(path))).toEqual([])
    for (
      const required of [
        "LICENSE",
        "README.md",
        "bin/dbdesk.mjs",
        "bin/dbdesk-mcp.mjs",
        "dist/app/cli.js",
        "dist/app/bridge.js",
        "dist/app/sqlite-child.js",
        "dist/lib/index.js",
        "dist/lib/sqlite-child.js",
        "dist/ui/index.html",
        "dist/lib/domain.js",
        "dist/lib/search.js",
        "dist/types/index.d.ts",
        "dist/types/domain/index.d.ts",
        "dist/types/search/index.d.ts"
      ]
    ) {
      expect(paths).toContain(required)
    }
    expect(pkg.packed.size).toBeLessThanOrEqual(3 * 1024 * 1024)
  })

  it("the tarball size the README gives is the one npm pack writes (within a quarter)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8")
    const figures = [...readme.matchAll(/dbdesk-[\d.]+\.tgz \((?:about|~) ?([\d.]+) MB\)/g)].map((match) =>
      Number(match[1])
    )
    expect(figures.length).toBeGreaterThan(0)
    for (const megabytes of figures) {
      const ratio = (megabytes * 1_000_000) / pkg.packed.size
      expect(ratio, `README says ${megabytes} MB; npm pack wrote ${pkg.packed.size} bytes`).toBeGreaterThan(0.75)
      expect(ratio, `README says ${megabytes} MB; npm pack wrote ${pkg.packed.size} bytes`).toBeLessThan(1.25)
    }
    // A figure about the installed dependencies would go stale the same way: the README gives none.
    expect(readme).not.toMatch(/installs: \d+ packages/)
  })

  it("the production install needs no dev dependency: tsx, vite and the CLI framework stay out", () => {
    for (const dev of ["tsx", "vite", "vitest", "typescript", "esbuild", "react", "@effect/cli"]) {
      expect(existsSync(join(project, "node_modules", dev)), dev).toBe(false)
    }
  })

  it("dbdesk --version prints the version of the package that is installed", () => {
    // The installed package.json is the only place the version can come from: change it there and ask again.
    const manifest = join(installed, "package.json")
    const original = readFileSync(manifest, "utf8")
    expect(execFileSync(bin("dbdesk"), ["--version"], { cwd: project, encoding: "utf8" }).trim()).toBe(
      JSON.parse(original).version
    )
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(original), version: "9.8.7-installed" }))
    try {
      expect(execFileSync(bin("dbdesk"), ["--version"], { cwd: project, encoding: "utf8" }).trim()).toBe(
        "9.8.7-installed"
      )
    } finally {
      writeFileSync(manifest, original)
    }
  })

  it("the installed serve answers tools/list and execute_query on the sample database; the installed bridge answers server/discover", async () => {
    const home = tempHome()
    const server = await serve(home)
    const client = await connectModernClient(server.url, { token: server.token })
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toContain("execute_query")
      const connections: any = await client.callTool({ name: "list_connections", arguments: {} })
      const sample = connections.structuredContent.connections.find((connection: any) => connection.type === "sqlite")
      // The SQLite child runs from the installed dist/app/sqlite-child.js.
      const queried: any = await client.callTool({
        name: "execute_query",
        arguments: { connection_id: sample.id, query: "SELECT count(*) AS n FROM products" }
      })
      expect(queried.structuredContent).toMatchObject({ columns: ["n"], rows: [[60]], row_count: 1 })
    } finally {
      await client.close()
    }

    const discover = {
      jsonrpc: "2.0",
      id: 7,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    }
    const answer = await askBridge(home, discover)
    expect(answer).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      result: { supportedVersions: expect.arrayContaining(["2026-07-28"]) }
    })
    expect(answer.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({
      name: "dbdesk",
      version: JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version
    })
    server.child.kill("SIGTERM")
  })
})

describe("a global install into a prefix laid out like npm's default one (node in <prefix>/bin)", () => {
  it(
    "clients install writes an entry naming what is installed here, proves it starts first, and the entry spawned as a client would answers server/discover",
    async () => {
      const prefix = join(pkg.work, "global")
      mkdirSync(join(prefix, "bin"), { recursive: true })
      // This Node as <prefix>/bin/node, as npm's default prefix has it (a link, or a copy across file systems).
      try {
        linkSync(process.execPath, join(prefix, "bin", "node"))
      } catch {
        copyFileSync(process.execPath, join(prefix, "bin", "node"))
      }
      npm([
        "install",
        "--global",
        "--prefix",
        prefix,
        "--omit=dev",
        "--prefer-offline",
        "--ignore-scripts",
        join(pkg.work, pkg.packed.filename)
      ], pkg.work)
      const global = join(prefix, "lib", "node_modules", "dbdesk")
      const sqlite = join(global, "node_modules", "better-sqlite3", "build", "Release")
      mkdirSync(sqlite, { recursive: true })
      copyFileSync(
        join(ROOT, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"),
        join(sqlite, "better_sqlite3.node")
      )

      const home = tempHome()
      const server = await serve(home)
      const config = join(tempHome("dbdesk-global-client-"), "mcp.json")
      // The user's shell: npm's bin directory first on PATH, so the linked dbdesk runs on <prefix>/bin/node.
      const install = await promisify(execFile)(join(prefix, "bin", "dbdesk"), [
        "clients",
        "install",
        "cursor",
        "--config-file",
        config,
        "--home",
        home
      ], {
        env: { ...process.env, PATH: `${join(prefix, "bin")}:/usr/bin:/bin` }
      })
      expect(install.stdout).toMatch(
        /^Checked: the entry starts and answered server\/discover \(dbdesk \d+\.\d+\.\d+\)\.$/m
      )
      const entry = JSON.parse(readFileSync(config, "utf8")).mcpServers.dbdesk
      // What is installed on this machine, by absolute path: never npx, which would ask a registry for dbdesk.
      expect(entry).toStrictEqual({
        command: join(prefix, "bin", "node"),
        args: [join(global, "bin", "dbdesk-mcp.mjs")],
        env: { DBDESK_HOME: home }
      })

      // Spawned exactly as a client does: its command, its args, its env, and a desktop app's bare PATH.
      const child = spawn(entry.command, entry.args, {
        env: { PATH: "/usr/bin:/bin", ...entry.env },
        cwd: "/",
        stdio: ["pipe", "pipe", "ignore"]
      })
      children.push(child)
      const line = await new Promise<string>((resolve, reject) => {
        let stdout = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk
          if (stdout.includes("\n")) resolve(stdout.split("\n")[0]!)
        })
        child.once("exit", (code) => reject(new Error(`the entry exited (${code}) before answering`)))
        child.stdin.write(
          `${
            JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "server/discover",
              params: {
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}
                }
              }
            })
          }\n`
        )
      })
      expect(JSON.parse(line)).toMatchObject({
        jsonrpc: "2.0",
        id: 1,
        result: { supportedVersions: expect.arrayContaining(["2026-07-28"]) }
      })
      child.stdin.end()
      server.child.kill("SIGTERM")
    },
    240_000
  )
})

describe("the embeddable library from the tarball (D-77)", () => {
  it("dbdesk, dbdesk/domain and dbdesk/search import in a plain ESM project; nothing else under the package does", () => {
    const script = `
      const [root, domain, search] = await Promise.all([import("dbdesk"), import("dbdesk/domain"), import("dbdesk/search")])
      let deep
      try { await import("dbdesk/dist/lib/index.js") } catch (error) { deep = error.code }
      console.log(JSON.stringify({ root: typeof root.startMcpServer, layer: typeof root.makeServerLayer, domain: typeof domain.PendingApproval, search: typeof search.compileFilter, deep }))`
    const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: project,
      encoding: "utf8"
    })
    expect(JSON.parse(printed)).toEqual({
      root: "function",
      layer: "function",
      domain: "function",
      search: "function",
      deep: "ERR_PACKAGE_PATH_NOT_EXPORTED"
    })
  })

  it("a TypeScript consumer using only the public types compiles (strict, nodenext, skipLibCheck false)", async () => {
    expect(await consumerCompile).toBe("")
  }, 120_000)

  it(
    "the same consumer compiles without Node's types (\"types\": []): the declarations name no NodeJS.* and no node: module",
    async () => {
      // mysql2 installs @types/node beside dbdesk, so "not installed" proves nothing: the program's files must not
      // include it (a `/// <reference types="node" />` anywhere would pull it in silently)
      const lines = (await consumerWithoutNodeCompile).split("\n")
      expect(lines.filter((line) => line.includes("error TS"))).toEqual([])
      expect(lines.filter((line) => line.includes("/@types/node/"))).toEqual([])
      expect(lines.some((line) => line.endsWith("/node_modules/dbdesk/dist/types/index.d.ts"))).toBe(true)
    },
    240_000
  )

  it("the shipped declarations hold no any of their own", () => {
    expect(anyInDeclarations(join(installed, "dist", "types"))).toEqual([])
  })

  it("the any finder reports a planted any and passes only the constraint of Effect's error base classes", () => {
    const planted = tempHome("dbdesk-any-")
    writeFileSync(
      join(planted, "a.d.ts"),
      [
        "declare const Failed_base: new <A extends Record<string, any> = {}>(args: A) => Error;",
        "export declare const loose: any;",
        "export declare const other_base: Array<any>;"
      ].join("\n")
    )
    expect(anyInDeclarations(planted)).toEqual(["a.d.ts:2 loose: any", "a.d.ts:3 Array<any>"])
  })

  it("the example host serves the official client every tool; an approved write lands, a denied one does not; stop frees the port", async () => {
    const host = join(ROOT, "examples", "embedded-host")
    copyFileSync(join(host, "host.mjs"), join(project, "host.mjs"))
    const example = await runExampleHost(join(project, "host.mjs"), project)
    children.push(example.child)
    const client = await connectModernClient(example.url, { token: example.token })
    const run = (query: string) =>
      client.callTool({ name: "execute_query", arguments: { connection_id: "inventory", query } }) as Promise<any>
    const stock = async () => (await run("SELECT count(*) AS n FROM products")).structuredContent.rows[0][0]
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual([...BUILT_IN_TOOL_NAMES].sort())
      const listed: any = await client.callTool({ name: "list_connections", arguments: {} })
      expect(listed.structuredContent.connections.map((connection: any) => connection.name)).toEqual([
        "Inventory",
        "CRM"
      ])
      expect(await stock()).toBe(3)

      const approved = run("INSERT INTO products (name, stock)\nVALUES ('Stapler', 5)")
      await example.waitFor(/Allow\? \[y\/N\]/)
      example.answer("y")
      expect((await approved).isError).toBe(false)
      expect(await stock()).toBe(4)
      const shown = example.output()
      expect(shown.match(/── approval needed ──/g)).toHaveLength(1)
      expect(shown).toContain("Allow INSERT on 'Inventory'?")
      expect(shown).toContain("client:     dbdesk-tests 1.0.0, token \"example client\" (fullAccess)")
      expect(shown).toContain("connection: Inventory (inventory)")
      expect(shown).toContain("tool:       execute_query")
      expect(shown).toContain("    │ INSERT INTO products (name, stock)\n    │ VALUES ('Stapler', 5)")

      const denied = run("DELETE FROM products WHERE name = 'Pen'")
      await example.waitFor(/Allow\? \[y\/N\]/, 2)
      example.answer("n")
      const refused = await denied
      expect([refused.isError, refused.content[0].text]).toEqual([
        true,
        "denied: the user did not approve this operation"
      ])
      expect(await stock()).toBe(4)
      await example.waitFor(/approval answered: denied/)
    } finally {
      await client.close()
    }
    const port = Number(new URL(example.url).port)
    expect(await example.interrupt()).toBe(0)
    expect(example.output()).toMatch(/stopped\n$/)
    await new Promise<void>((resolve, reject) => {
      const probe = createServer()
      probe.once("error", reject)
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()))
    })
  })
})
