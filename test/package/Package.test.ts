import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureUiBuilt } from "../support/Browser.ts"
import { connectModernClient } from "../support/McpClients.ts"
import { tempHome } from "../support/TestServer.ts"

/**
 * Issue 23: the package as a user gets it. `npm pack`, then `npm install --omit=dev` of the tarball into an empty
 * project, then the installed `dbdesk` and `dbdesk-mcp` run against a temporary support directory.
 *
 * The install runs with --ignore-scripts and the better-sqlite3 binary this checkout already compiled is copied
 * into the installed better-sqlite3: its install script would compile it again (about two minutes on two cores,
 * since no prebuilt binary can be downloaded here). It is the one production dependency with a script to run
 * (package.json allowScripts). Packuments come from the registry, tarballs from npm's cache (--prefer-offline).
 */
const ROOT = join(import.meta.dirname, "..", "..")
const work = tempHome("dbdesk-package-")
const project = join(work, "project")
const installed = join(project, "node_modules", "dbdesk")
const bin = (name: string) => join(project, "node_modules", ".bin", name)

interface PackedFile {
  readonly path: string
  readonly size: number
}
let packed: { readonly filename: string; readonly size: number; readonly files: ReadonlyArray<PackedFile> }

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

const children: Array<ChildProcess> = []

beforeAll(async () => {
  // dist/app is built by the global setup (test/support/BuildBins.ts); the library entry is built here, and the UI
  // through the UI tests' lock, so no fork rewrites dist/ui while it is packed. (dist/types, tsc's, is left to prepack.)
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs"), "lib"], { cwd: ROOT, stdio: "ignore" })
  await ensureUiBuilt()
  const [result] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT)) as Array<typeof packed>
  packed = result!
  mkdirSync(project)
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "empty-project", version: "1.0.0", private: true }))
  npm(["install", "--omit=dev", "--prefer-offline", "--ignore-scripts", join(work, packed.filename)], project)
  const binary = join("build", "Release", "better_sqlite3.node")
  mkdirSync(join(project, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true })
  copyFileSync(join(ROOT, "node_modules", "better-sqlite3", binary), join(project, "node_modules", "better-sqlite3", binary))
}, 120_000)

afterAll(() => {
  for (const child of children) child.kill("SIGKILL")
})

/** Starts the installed `dbdesk serve`; resolves with its MCP URL and the Default token it prints. */
const serve = (home: string) =>
  new Promise<{ url: string; token: string; child: ChildProcess }>((resolve, reject) => {
    const child = spawn(bin("dbdesk"), ["serve", "--port", "0", "--home", home], { cwd: project, stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let output = ""
    const seen = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output)?.[1]
      const token = /^(dbd_\S+)$/m.exec(output)?.[1]
      if (url !== undefined && token !== undefined) resolve({ url, token, child })
    }
    child.stdout!.on("data", seen)
    child.stderr!.on("data", seen)
    child.once("exit", (code) => reject(new Error(`the installed dbdesk serve exited (${code}):\n${output}`)))
  })

/** Sends one line to the installed bridge and resolves with its first stdout line; stdin stays open until then. */
const askBridge = (home: string, message: unknown) =>
  new Promise<any>((resolve, reject) => {
    const child = spawn(bin("dbdesk-mcp"), ["--home", home], { cwd: project, stdio: ["pipe", "pipe", "pipe"] })
    children.push(child)
    let stdout = ""
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const line = stdout.split("\n")[0]!
      if (stdout.includes("\n")) {
        child.stdin!.end()
        resolve(JSON.parse(line))
      }
    })
    child.once("exit", (code) => reject(new Error(`the installed dbdesk-mcp exited (${code}) before answering:\n${stderr}`)))
    child.stdin!.write(`${JSON.stringify(message)}\n`)
  })

describe("the npm package (issue 23)", () => {
  it("the tarball holds the built programs, library, types and UI, the bins, README and LICENSE; no sources or tests; under 3 MiB", () => {
    const paths = packed.files.map((file) => file.path)
    const allowed = /^(package\.json|README\.md|LICENSE|bin\/(dbdesk|dbdesk-mcp|not-built)\.mjs|dist\/(app|lib|types|ui)\/.+)$/
    expect(paths.filter((path) => !allowed.test(path))).toEqual([])
    for (const required of ["LICENSE", "README.md", "bin/dbdesk.mjs", "bin/dbdesk-mcp.mjs", "dist/app/cli.js", "dist/app/bridge.js", "dist/app/sqlite-child.js", "dist/lib/index.js", "dist/lib/sqlite-child.js", "dist/ui/index.html"]) {
      expect(paths).toContain(required)
    }
    expect(packed.size).toBeLessThanOrEqual(3 * 1024 * 1024)
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
    expect(execFileSync(bin("dbdesk"), ["--version"], { cwd: project, encoding: "utf8" }).trim()).toBe(JSON.parse(original).version)
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(original), version: "9.8.7-installed" }))
    try {
      expect(execFileSync(bin("dbdesk"), ["--version"], { cwd: project, encoding: "utf8" }).trim()).toBe("9.8.7-installed")
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
      const queried: any = await client.callTool({ name: "execute_query", arguments: { connection_id: sample.id, query: "SELECT count(*) AS n FROM products" } })
      expect(queried.structuredContent).toMatchObject({ columns: ["n"], rows: [[60]], row_count: 1 })
    } finally {
      await client.close()
    }

    const discover = {
      jsonrpc: "2.0",
      id: 7,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } }
    }
    const answer = await askBridge(home, discover)
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: 7, result: { supportedVersions: expect.arrayContaining(["2026-07-28"]) } })
    expect(answer.result._meta["io.modelcontextprotocol/serverInfo"]).toMatchObject({ name: "dbdesk", version: JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version })
    server.child.kill("SIGTERM")
  })
})
