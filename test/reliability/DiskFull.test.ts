// D-88, disk full: the support directory lives on a small tmpfs mounted for the test (root, or passwordless
// sudo; a tmpfs of a fixed size fills for real, no LD_PRELOAD or mock needed). With the disk full, writing the tokens,
// connections, settings, activity and handshake files fails; the oracle: a clear error for the write that was asked
// for (naming the file and the lack of space), the server keeps serving, every file still parses with the content
// it had, no temporary file is left behind, and once there is space again every write works, everything acknowledged
// is there and `dbdesk activity verify` passes.
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { ActivityLog } from "../../src/services/ActivityLog.ts"
import { runProcess } from "../cli/CliHarness.ts"
import { describeWhenInstalled } from "../support/InstalledSuite.ts"
import { modernRequest, postMcp, startTestServer, type TestServer } from "../support/TestServer.ts"
import { partDirectory, reportFigures } from "./Run.ts"
import { spawnServe } from "./ServeUnderTest.ts"

const asRoot = process.getuid?.() === 0
const sudo = !asRoot && (() => {
  try {
    execFileSync("sudo", ["-n", "true"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
const privileged = (command: string, args: ReadonlyArray<string>) =>
  execFileSync(asRoot ? command : "sudo", asRoot ? [...args] : ["-n", command, ...args], { stdio: "pipe" })

const TMPFS_MISSING = "the disk-full tests mount a 16 MiB tmpfs: run them as root or with passwordless sudo (CI does)"

/** Fills the file system holding `directory` until a write fails with ENOSPC; returns the filler file. */
const fill = (directory: string): string => {
  const filler = join(directory, "filler")
  const fd = openSync(filler, "a")
  const chunk = Buffer.alloc(64 * 1024, 1)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error
  } finally {
    closeSync(fd)
  }
  // Small writes may still fit in the last partial page: fill byte by byte to the very end.
  const tail = openSync(filler, "a")
  try {
    for (;;) writeSync(tail, Buffer.alloc(512, 1))
  } catch {
    // full
  } finally {
    closeSync(tail)
  }
  return filler
}

const filesOf = (home: string) => readdirSync(home).sort()
const parsedJson = (home: string, files = ["tokens.json", "connections.json", "settings.json", "mcp-handshake.json"]) =>
  Object.fromEntries(files.map((name) => [name, JSON.parse(readFileSync(join(home, name), "utf8"))]))

describeWhenInstalled(asRoot || sudo, TMPFS_MISSING)("disk full while dbdesk writes its files (D-88)", () => {
  let mountPoint: string
  let home: string
  let server: TestServer
  let cookie: string
  let origin: string

  const ui = async (path: string, method = "GET", body?: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { cookie, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, text }
  }

  beforeAll(async () => {
    mountPoint = join(partDirectory("disk-full"), "tmpfs")
    mkdirSync(mountPoint)
    privileged("mount", [
      "-t",
      "tmpfs",
      "-o",
      `size=16m,mode=0700${asRoot ? "" : `,uid=${process.getuid?.()}`}`,
      "tmpfs",
      mountPoint
    ])
    home = join(mountPoint, "home")
    server = await startTestServer({
      home,
      token: "readWrite",
      settings: { ui: { port: 0 } },
      bridgeTiming: { rotateEvery: "1 second", overlap: "10 minutes" }
    })
    const address = Context.get(server.context, UiAddress)
    origin = address.origin
    cookie = (await fetch(address.launchUrl, { redirect: "manual" })).headers.get("set-cookie")!.split(";")[0]!
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    if (mountPoint !== undefined && existsSync(mountPoint)) privileged("umount", ["-l", mountPoint])
  })

  it(
    "tokens, connections, settings, activity and handshake writes fail with a clear error and lose nothing; all work again once there is space",
    async () => {
      const mcp = (body: unknown) => postMcp(server.url, body, { authorization: `Bearer ${server.token}` })
      const sampleId = (await mcp(modernRequest("tools/call", { name: "list_connections", arguments: {} }))).json.result
        .structuredContent.connections[0].id
      // Acknowledged before the disk fills: each must survive.
      const tokenA = await ui("/api/tokens", "POST", {
        name: "before",
        access: "readOnly",
        connections: "all",
        expiresInDays: null
      })
      expect(tokenA.status).toBe(200)
      expect((await ui("/api/settings", "PATCH", { limits: { requestsPerMinute: 111 } })).status).toBe(200)
      const samplePath = JSON.parse(readFileSync(join(home, "connections.json"), "utf8")).connections[0].path
      const sqliteForm = {
        type: "sqlite",
        path: samplePath,
        externalAccess: "readOnly",
        aiPolicy: "askEachTime",
        confirmQueries: "writes"
      }
      expect((await ui("/api/connections", "POST", { ...sqliteForm, name: "Before" })).status).toBe(200)
      await Effect.runPromise(Context.get(server.context, ActivityLog).flush)
      const before = parsedJson(home)

      const filler = fill(mountPoint)
      const failures: Record<string, { status: number; text: string }> = {
        tokens: await ui("/api/tokens", "POST", {
          name: "during",
          access: "readOnly",
          connections: "all",
          expiresInDays: null
        }),
        connections: await ui("/api/connections", "POST", { ...sqliteForm, name: "During" }),
        settings: await ui("/api/settings", "PATCH", { limits: { requestsPerMinute: 222 } })
      }
      // The server keeps serving while full: reads, tools, and the activity rows they cause (which cannot be written).
      const during = []
      for (let i = 0; i < 20; i++) {
        during.push(
          (await mcp(
            modernRequest("tools/call", {
              name: "execute_query",
              arguments: { connection_id: sampleId, query: `SELECT ${i}` }
            }, i)
          )).status
        )
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500)) // a bridge rotation attempted while full
      const whileFull = parsedJson(home)
      const leftovers = filesOf(home).filter((name) => name.endsWith(".tmp"))

      rmSync(filler)
      // The next rotation, with space again, publishes a new bridge token.
      const rotatedAfter = Date.now() + 15_000
      while (
        JSON.parse(readFileSync(join(home, "mcp-handshake.json"), "utf8")).bridgeToken ===
          whileFull["mcp-handshake.json"].bridgeToken && Date.now() < rotatedAfter
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const after = {
        tokens: await ui("/api/tokens", "POST", {
          name: "after",
          access: "readOnly",
          connections: "all",
          expiresInDays: null
        }),
        connections: await ui("/api/connections", "POST", { ...sqliteForm, name: "After" }),
        settings: await ui("/api/settings", "PATCH", { limits: { requestsPerMinute: 333 } })
      }
      await Effect.runPromise(Context.get(server.context, ActivityLog).flush)
      const handshakeAfter = JSON.parse(readFileSync(join(home, "mcp-handshake.json"), "utf8"))
      const bridgeWorks = (await postMcp(server.url, modernRequest("tools/list"), {
        authorization: `Bearer ${handshakeAfter.bridgeToken}`
      })).status
      await server.stop()
      const verify = runProcess(["activity", "verify", "--home", home])
      const exported = runProcess(["activity", "export", "--format", "jsonl", "--home", home])
      const digests = new Set(
        exported.stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line).digest)
      )
      const keptWhileFull = Array.from({ length: 20 }, (_, i) =>
        createHash("sha256").update(`SELECT ${i}`).digest("hex")).filter((digest) =>
          digests.has(digest)
        ).length
      const final = parsedJson(home, ["tokens.json", "connections.json", "settings.json"])

      const clear = Object.values(failures).filter((failure) =>
        failure.status >= 400 && /no space left on device/i.test(failure.text) && /\.json/.test(failure.text)
      ).length
      reportFigures("disk-full", [
        { name: "writes refused while full", value: `${clear}/3 with a clear error`, required: "3/3", ok: clear === 3 },
        {
          name: "MCP calls served while full",
          value: `${
            during.filter((status) => status === 200).length
          }/${during.length}`
        },
        {
          name: "files changed or unparsable while full",
          value: Object.keys(before).filter((name) =>
            name !== "mcp-handshake.json" && JSON.stringify(before[name]) !== JSON.stringify(whileFull[name])
          ).length,
          required: "0"
        },
        { name: "temporary files left", value: leftovers.length, required: "0", ok: leftovers.length === 0 },
        {
          name: "activity rows of calls served while full, written after",
          value: `${keptWhileFull}/20`,
          required: "20/20",
          ok: keptWhileFull === 20
        },
        {
          name: "activity verify after",
          value: verify.code === 0 ? "ok" : verify.stdout + verify.stderr,
          required: "ok",
          ok: verify.code === 0
        }
      ], { failures, verify: verify.stdout })

      for (const [file, failure] of Object.entries(failures)) {
        expect(failure.status, `${file}: ${failure.text}`).toBeGreaterThanOrEqual(400)
        expect(failure.text, file).toMatch(/no space left on device/i)
        expect(failure.text, file).toContain(`${file}.json`)
      }
      expect(
        during.every((status) => status === 200),
        `statuses while full: ${during}`
      ).toBe(true)
      expect(leftovers).toEqual([])
      expect(whileFull["tokens.json"]).toEqual(before["tokens.json"])
      expect(whileFull["connections.json"]).toEqual(before["connections.json"])
      expect(whileFull["settings.json"]).toEqual(before["settings.json"])
      expect(whileFull["mcp-handshake.json"].port).toBe(before["mcp-handshake.json"].port)
      for (const [file, answer] of Object.entries(after)) {
        expect(answer.status, `${file} after: ${answer.text}`).toBe(200)
      }
      expect(bridgeWorks, "the bridge token of the handshake file works once there is space again").toBe(200)
      expect(handshakeAfter.bridgeToken).not.toBe(whileFull["mcp-handshake.json"].bridgeToken)
      expect(final["tokens.json"].tokens.map((token: { name: string }) => token.name)).toEqual(
        expect.arrayContaining(["before", "after"])
      )
      expect(final["connections.json"].connections.map((connection: { name: string }) => connection.name)).toEqual(
        expect.arrayContaining(["Before", "After"])
      )
      expect(final["settings.json"].limits.requestsPerMinute).toBe(333)
      expect(verify.code, verify.stdout + verify.stderr).toBe(0)
      expect(keptWhileFull, "every call served while the disk was full has its activity row once there is space").toBe(
        20
      )
    },
    120_000
  )

  it(
    "serve started on a full disk stops with one clear line naming the file and the lack of space, and leaves the directory as it was",
    async () => {
      const directory = join(mountPoint, "second")
      mkdirSync(directory)
      const filler = fill(mountPoint)
      try {
        const log = join(partDirectory("disk-full-start"), "serve.log")
        const outcome = await spawnServe(join(directory, "home"), log).then(
          (running) => running.stop().then(() => "started"),
          (error: Error) => error.message
        )
        expect(outcome).not.toBe("started")
        expect(outcome).toMatch(/no space left on device|disk is full/i)
        expect(outcome).not.toMatch(/\n\s+at /)
        const left = existsSync(join(directory, "home")) ? readdirSync(join(directory, "home")) : []
        expect(left.filter((name) => name.endsWith(".tmp") || name.endsWith(".lock")), "no temporary or lock file left")
          .toEqual([])
        for (const name of left.filter((file) => file.endsWith(".json"))) {
          expect(() => JSON.parse(readFileSync(join(directory, "home", name), "utf8")), name).not.toThrow()
        }
      } finally {
        rmSync(filler)
      }
    },
    120_000
  )
})
