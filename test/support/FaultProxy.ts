// A loopback TCP proxy that sits between dbdesk and a database server (or the search test engine) and breaks
// the connections on command: reset (RST both ways), half-close (FIN towards dbdesk, the server side kept),
// or stall (nothing forwarded in either direction while closes still propagate). D-73, item 4.
import { createServer, type Server, type Socket } from "node:net"

export interface FaultProxy {
  readonly port: number
  /** Connections open through the proxy now. */
  readonly open: () => number
  /** Connections accepted since the proxy started. */
  readonly accepted: () => number
  /** Bytes forwarded from the server to the client since the proxy started. */
  readonly downstreamBytes: () => number
  /** Resets every open connection on both sides (RST, as a crashed middlebox or a killed peer does). */
  readonly reset: () => void
  /** Sends FIN to the client side of every open connection and stops forwarding to it; the server side stays open. */
  readonly halfClose: () => void
  /** Stops forwarding on every open connection; new connections pass. Closes still propagate. */
  readonly stall: () => void
  /** Calls `onData` once the next time the server sends data to a client, then forgets it. */
  readonly onDownstream: (onData: () => void) => void
  /**
   * Arms a break mid-read: the next `bytes` bytes from the server are forwarded, then the connection carrying them is
   * reset (RST) or stalled (nothing more forwarded either way).
   */
  readonly breakAfter: (bytes: number, mode: "reset" | "stall") => void
  /** Holds each connection accepted from now on this long before it reaches the server (a slow new connection). */
  readonly delayNew: (ms: number) => void
  /** Sends new connections to another port (for a server that starts after the proxy). */
  readonly retarget: (port: number) => void
  readonly close: () => Promise<void>
}

interface Pair {
  readonly client: Socket
  readonly server: Socket
  stalled: boolean
}

export const startFaultProxy = async (initialPort: number, targetHost = "127.0.0.1"): Promise<FaultProxy> => {
  let targetPort = initialPort
  const pairs = new Set<Pair>()
  let accepted = 0
  let downstream = 0
  let waiting: Array<() => void> = []
  let armed: { remaining: number; mode: "reset" | "stall" } | undefined
  let connectDelay = 0

  const pipe = (from: Socket, to: Socket, pair: Pair, counts: boolean) => {
    from.on("data", (chunk: Buffer) => {
      if (pair.stalled || to.destroyed || to.writableEnded) return
      if (counts) {
        downstream += chunk.length
        const callbacks = waiting
        waiting = []
        for (const callback of callbacks) callback()
        if (armed !== undefined && chunk.length >= armed.remaining) {
          const { remaining, mode } = armed
          armed = undefined
          to.write(chunk.subarray(0, remaining), () => {
            if (mode === "stall") return
            pairs.delete(pair)
            pair.client.resetAndDestroy()
            pair.server.resetAndDestroy()
          })
          pair.stalled = true
          return
        }
        if (armed !== undefined) armed.remaining -= chunk.length
      }
      to.write(chunk)
    })
  }

  const server: Server = createServer((client) => {
    accepted++
    const upstream = new (client.constructor as typeof Socket)()
    const pair: Pair = { client, server: upstream, stalled: false }
    pairs.add(pair)
    const drop = () => {
      pairs.delete(pair)
      if (!client.destroyed) client.destroy()
      if (!upstream.destroyed) upstream.destroy()
    }
    client.on("error", drop)
    upstream.on("error", drop)
    client.on("close", drop)
    upstream.on("close", drop)
    client.on("end", () => upstream.end())
    upstream.on("end", () => client.end())
    pipe(client, upstream, pair, false)
    pipe(upstream, client, pair, true)
    if (connectDelay === 0) upstream.connect(targetPort, targetHost)
    else setTimeout(() => client.destroyed || upstream.connect(targetPort, targetHost), connectDelay)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0

  return {
    port,
    open: () => pairs.size,
    accepted: () => accepted,
    downstreamBytes: () => downstream,
    reset: () => {
      for (const pair of [...pairs]) {
        pairs.delete(pair)
        pair.client.resetAndDestroy()
        pair.server.resetAndDestroy()
      }
    },
    halfClose: () => {
      for (const pair of pairs) {
        pair.stalled = true
        pair.client.end()
      }
    },
    stall: () => {
      for (const pair of pairs) pair.stalled = true
    },
    onDownstream: (onData) => {
      waiting.push(onData)
    },
    breakAfter: (bytes, mode) => {
      armed = { remaining: bytes, mode }
    },
    delayNew: (ms) => {
      connectDelay = ms
    },
    retarget: (port) => {
      targetPort = port
    },
    close: async () => {
      for (const pair of [...pairs]) {
        pair.client.destroy()
        pair.server.destroy()
      }
      pairs.clear()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
