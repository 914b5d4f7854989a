// What the stdio bridge and the server agree on for the bridge's local channel (src/http/BridgeChannel.ts): kept
// apart so the bridge's bundle takes these lines and nothing of the server.
import { join } from "node:path"
import type { RequestId } from "../domain/JsonRpc.ts"

/** The channel's socket, next to the handshake file (the directory is the user's alone, 0700). */
export const BRIDGE_CHANNEL_FILE = "mcp-bridge.sock"
/** The first line each side sends; anything else closes the channel (the bridge then uses HTTP). */
export const CHANNEL_HELLO = "dbdesk-bridge-channel/1"
/** Channels open at once; past it a bridge is refused and uses HTTP. */
export const MAX_CHANNELS = 16
/** Requests of one channel running at once; past it a request is refused at once (-33000) and a cancel still passes. */
export const MAX_CHANNEL_IN_FLIGHT = 64
/** Longest socket path the platforms take (sun_path is 104–108 bytes); a longer support directory has no channel. */
const MAX_SOCKET_PATH = 100

/** The socket path for a support directory, or undefined where there is none (Windows, a path too long). */
export const channelPathOf = (directory: string): string | undefined => {
  const path = join(directory, BRIDGE_CHANNEL_FILE)
  return process.platform === "win32" || Buffer.byteLength(path) > MAX_SOCKET_PATH ? undefined : path
}

/** A line from the server: the JSON of the request id the message belongs to, a tab, the message. */
export const frameLine = (id: RequestId | null, json: string) => `${JSON.stringify(id)}\t${json}\n`

/** Splits a socket's text into lines, keeping an unfinished one and its size in bytes (a limit is checked on it). */
export class LineReader {
  private rest = ""
  /** Bytes of the unfinished line, counted as chunks arrive rather than rescanned. */
  restBytes = 0

  push(chunk: string): Array<string> {
    if (!chunk.includes("\n")) {
      this.rest += chunk
      this.restBytes += Buffer.byteLength(chunk)
      return []
    }
    const lines = (this.rest + chunk).split("\n")
    this.rest = lines.pop() ?? ""
    this.restBytes = Buffer.byteLength(this.rest)
    return lines
  }
}
