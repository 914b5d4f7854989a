// No code path accepts an SSH host key without a check: ssh2 accepts every key when no hostVerifier is given, so
// ssh2 is used in one file only, its one connect call passes the verifier, and the verifier says yes only for a key
// a known_hosts file lists.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { hostKeyState } from "../../../src/services/ssh/KnownHosts.ts"

const sources = (directory: string): Array<string> =>
  readdirSync(directory).flatMap((name) => {
    const full = join(directory, name)
    return statSync(full).isDirectory() ? sources(full) : /\.tsx?$/.test(name) ? [full] : []
  })

describe("SSH host keys are always checked", () => {
  const root = join(import.meta.dirname, "../../../src")

  it("ssh2's Client is created and connected in Tunnel.ts only, and its connect passes the host-key verifier", () => {
    const users = sources(root).filter((file) =>
      /from "ssh2"/.test(readFileSync(file, "utf8")) &&
      !/import type \{[^}]*\} from "ssh2"/.test(readFileSync(file, "utf8"))
    )
    expect(users.map((file) => file.slice(root.length))).toStrictEqual(["/services/ssh/Tunnel.ts"])
    const text = readFileSync(join(root, "services/ssh/Tunnel.ts"), "utf8")
    expect(text.match(/new Client\(\)/g)).toHaveLength(1)
    const connects = [...text.matchAll(/client\.connect\(\{([\s\S]*?)\n {8}\}\)/g)]
    expect(connects).toHaveLength(1)
    const verifier = /hostVerifier: \(key: Buffer\): boolean => \{([\s\S]*?)\n {10}\},/.exec(connects[0]![1]!)?.[1] ??
      ""
    expect(verifier).toMatch(/^\s*const state = options\.hostKeys\.check\(hop, key\)/)
    // The one way to say yes: the files list this key.
    expect(verifier.match(/return true/g)).toHaveLength(1)
    expect(verifier).toContain("if (state.kind === \"known\") return true")
    expect(verifier.trim().endsWith("return false")).toBe(true)
    expect(text).not.toMatch(/hostVerifier: \(\) => true|hostHash/)
  })

  it("a key no file lists is unknown, another key of the same type is a change, and @revoked refuses", () => {
    const key = Buffer.concat([
      Buffer.from([0, 0, 0, 11]),
      Buffer.from("ssh-ed25519"),
      Buffer.from([0, 0, 0, 4, 1, 2, 3, 4])
    ])
    const other = Buffer.concat([
      Buffer.from([0, 0, 0, 11]),
      Buffer.from("ssh-ed25519"),
      Buffer.from([0, 0, 0, 4, 9, 9, 9, 9])
    ])
    expect(hostKeyState([], "h", 22, key)).toStrictEqual({ kind: "unknown" })
    const file = join(tmpdir(), `kh-${Math.random()}`)
    writeFileSync(
      file,
      `h,other ssh-ed25519 ${other.toString("base64")}\n@revoked * ssh-ed25519 ${key.toString("base64")}\n`
    )
    expect(hostKeyState([file], "h", 22, key).kind).toBe("revoked")
    expect(hostKeyState([file], "h", 22, other).kind).toBe("known")
    expect(hostKeyState([file], "[h]:2222", 22, other).kind).toBe("unknown")
    expect(hostKeyState([file], "h", 2222, other).kind).toBe("unknown")
  })
})
