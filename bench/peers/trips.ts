/**
 * Round trips between a server and PostgreSQL, counted on the wire: a TCP relay on 127.0.0.1 in front of the
 * database that counts the times the client starts sending again after the server has answered (one turn = one
 * round trip the client waited for). Pipelined messages sent together count once, as they cost one wait.
 */
import * as net from "node:net"

export interface TripCounter {
  readonly port: number
  /** Turns since the last reset. */
  readonly trips: () => number
  readonly reset: () => void
  readonly stop: () => Promise<void>
}

export const startTripCounter = (host: string, port: number): Promise<TripCounter> =>
  new Promise((resolve, reject) => {
    let trips = 0
    const sockets = new Set<net.Socket>()
    const server = net.createServer((client) => {
      const upstream = net.connect(port, host)
      sockets.add(client).add(upstream)
      // The client's first bytes on a connection, and its first bytes after an answer, start a round trip.
      let answered = true
      client.on("data", (chunk) => {
        if (answered) trips++
        answered = false
        upstream.write(chunk)
      })
      upstream.on("data", (chunk) => {
        answered = true
        client.write(chunk)
      })
      const close = () => {
        client.destroy()
        upstream.destroy()
        sockets.delete(client)
        sockets.delete(upstream)
      }
      client.on("close", close).on("error", close)
      upstream.on("close", close).on("error", close)
    })
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      resolve({
        port: address.port,
        trips: () => trips,
        reset: () => {
          trips = 0
        },
        stop: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
