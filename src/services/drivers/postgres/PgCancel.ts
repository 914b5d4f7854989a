import { connect } from "node:net"
import type { Duplex } from "node:stream"

/** How long a cancel request may take before the session it targets is given up instead. */
export const CANCEL_TIMEOUT_MS = 5000

const CANCEL_REQUEST_CODE = 80877102

/**
 * Sends the protocol CancelRequest for one backend on a fresh socket (Int32 16, Int32 80877102, process id, secret
 * key). Resolves true once the server has closed that socket (the backend has been signalled), false on any error or
 * after `CANCEL_TIMEOUT_MS`; never rejects. Only after `true` may the session run another statement: a cancel still
 * on its way could otherwise end that one.
 */
export const sendCancel = (
  host: string,
  port: number,
  processId: number,
  secretKey: number,
  open?: () => Duplex
): Promise<boolean> =>
  new Promise((resolve) => {
    const message = Buffer.alloc(16)
    message.writeInt32BE(16, 0)
    message.writeInt32BE(CANCEL_REQUEST_CODE, 4)
    message.writeInt32BE(processId, 8)
    message.writeInt32BE(secretKey, 12)
    // A host that is a directory names the server's Unix socket, as libpq reads it.
    // Through an SSH tunnel the request goes on a channel of its own, like any session.
    const socket = open !== undefined
      ? open()
      : host.startsWith("/")
      ? connect({ path: `${host}/.s.PGSQL.${port}` })
      : connect({ host, port })
    let answered = false
    const finish = (delivered: boolean) => {
      if (answered) return
      answered = true
      clearTimeout(timer)
      socket.destroy()
      resolve(delivered)
    }
    const timer = setTimeout(() => finish(false), CANCEL_TIMEOUT_MS)
    socket.on("connect", () => socket.end(message))
    socket.on("error", () => finish(false))
    socket.on("close", (hadError?: boolean) => finish(hadError !== true))
  })
