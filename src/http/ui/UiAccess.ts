import { timingSafeEqual } from "node:crypto"

/** The cookie that carries the UI session after the key exchange (D-4). */
export const UI_COOKIE = "dbdesk_ui"

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"]

/** Host must be a loopback name with the bound port (DNS rebinding defence); compared without case. */
export const hostAllowed = (host: string | undefined, port: number): boolean => {
  if (host === undefined) return false
  const lower = host.toLowerCase()
  return LOOPBACK_NAMES.some((name) => lower === `${name}:${port}`)
}

/** A request without Origin is normal (same-origin GETs); one with Origin must be this UI's own origin. */
export const originAllowed = (origin: string | undefined, host: string): boolean =>
  origin === undefined || origin.toLowerCase() === `http://${host.toLowerCase()}`

export const sameSecret = (presented: string | undefined, secret: string): boolean => {
  if (presented === undefined) return false
  const a = Buffer.from(presented)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const index = part.indexOf("=")
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim()
  }
  return undefined
}

export const sessionCookie = (value: string) => `${UI_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/`

/** The page a browser gets without the cookie: it says where the working address is. */
export const LOCKED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>dbdesk</title></head>
<body style="font-family:system-ui,sans-serif;margin:3rem;max-width:40rem">
<h1>Open dbdesk from the terminal</h1>
<p>This page needs the address that <code>dbdesk serve</code> printed when it started
(it ends with <code>?key=…</code>). The key changes at every start, so an old link no longer works.</p>
</body></html>`
