import { Context } from "effect"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { UiAddress } from "../../src/http/ui/UiListener.ts"
import { startTestServer, type TestServer, type TestServerOptions } from "./TestServer.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const built = join(root, "dist/ui/index.html")

const newestMtime = (directory: string): number =>
  readdirSync(directory, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(directory, entry.name)
    return Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }, 0)

/** Builds the UI with Vite when `dist/ui` is older than `src/ui` or `src/domain`; one build at a time across forks. */
export const ensureUiBuilt = async (): Promise<void> => {
  const stale = () =>
    !existsSync(built) ||
    statSync(built).mtimeMs < Math.max(newestMtime(join(root, "src/ui")), newestMtime(join(root, "src/domain")))
  if (!stale()) return
  // One lock per checkout; it names the process holding it, so a fork killed mid-build (a timed-out hook) does not
  // leave every later browser test waiting on a lock nobody will remove.
  const lock = join(tmpdir(), `dbdesk-ui-build-${createHash("sha256").update(root).digest("hex").slice(0, 12)}.lock`)
  const holderGone = () => {
    try {
      process.kill(Number(readFileSync(join(lock, "pid"), "utf8")), 0)
      return false
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH" ||
        (error as NodeJS.ErrnoException).code === "ENOENT" && Date.now() - statSync(lock).mtimeMs > 10_000
    }
  }
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, "pid"), String(process.pid))
      break
    } catch {
      // another fork is building: wait for its lock to go (or its holder to be gone), then look again
      while (existsSync(lock)) {
        try {
          if (holderGone()) rmSync(lock, { recursive: true, force: true })
        } catch {
          // the lock went between the two looks
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      if (!stale()) return
    }
  }
  try {
    if (!stale()) return
    const { build } = await import("vite")
    // vitest sets NODE_ENV=test, and Vite would then bundle React's development build (jsxDEV, owner stacks: several
    // times slower) into dist/ui, which `npm start` also serves: build for production, as `npm run build` does.
    const nodeEnv = process.env["NODE_ENV"]
    process.env["NODE_ENV"] = "production"
    try {
      await build({
        configFile: join(root, "vite.config.ts"),
        root: join(root, "src/ui"),
        logLevel: "warn",
        mode: "production"
      })
    } finally {
      process.env["NODE_ENV"] = nodeEnv
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

export const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

/** D-61: Debian's chromium through playwright-core, a fresh profile per launch. */
export const launchBrowser = async (): Promise<
  { readonly context: BrowserContext; readonly close: () => Promise<void> }
> => {
  const profile = mkdtempSync(join(tmpdir(), "dbdesk-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ],
    viewport: { width: 1400, height: 900 }
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    }
  }
}

export interface UiSession {
  readonly server: TestServer
  readonly ui: Context.Tag.Service<typeof UiAddress>
  readonly page: Page
  readonly close: () => Promise<void>
}

/** The real server with its UI on a free port, a browser page opened at the terminal URL (key exchanged for the cookie). */
export const openUi = async (options: TestServerOptions = {}): Promise<UiSession> => {
  await ensureUiBuilt()
  const server = await startTestServer({ ...options, settings: { ...options.settings, ui: { port: 0 } } })
  const ui = Context.get(server.context, UiAddress)
  const { context, close } = await launchBrowser()
  const page = context.pages()[0] ?? await context.newPage()
  await page.goto(ui.launchUrl)
  return {
    server,
    ui,
    page,
    close: async () => {
      await close()
      await server.stop()
    }
  }
}

/** Screenshots for a person to look at (not committed); set DBDESK_SCREENSHOTS to a directory to keep them. */
export const screenshot = async (page: Page, name: string) => {
  const directory = process.env["DBDESK_SCREENSHOTS"]
  if (directory === undefined) return
  mkdirSync(directory, { recursive: true })
  await page.screenshot({ path: join(directory, `${name}.png`), fullPage: false })
}
