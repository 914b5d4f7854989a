import { it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { PassThrough } from "node:stream"
import { describe, expect } from "vitest"
import type { PendingApproval } from "../../src/domain/Approval.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { terminalApprovalPrompt } from "../../src/services/TerminalApprovalPrompt.ts"

const approval: PendingApproval = {
  id: "a1",
  kind: "statement",
  message: "Allow DELETE on 'Sample (SQLite)'? This deletes every row of orders.",
  statement: "DELETE FROM orders\n-- no WHERE",
  connectionId: "c1",
  connectionName: "Sample (SQLite)",
  principal: "Default",
  client: "claude-code 1.0",
  requestedAt: new Date(0).toISOString()
}

const withPreview: PendingApproval = {
  ...approval,
  preview: {
    _tag: "Changes",
    action: "delete",
    target: "orders",
    unit: "row",
    count: 7,
    columns: ["id", "status"],
    rows: [{ before: [3, "pending"], after: null }]
  }
}

const answering = (answer: string, shown: PendingApproval = approval) =>
  Effect.gen(function*() {
    const input = new PassThrough()
    const output = new PassThrough()
    let printed = ""
    output.on("data", (chunk) => (printed += chunk))
    const prompt = yield* Effect.provide(ApprovalPrompt, terminalApprovalPrompt(input, output))
    const fiber = yield* Effect.fork(prompt.ask(shown))
    yield* Effect.sleep("20 millis")
    input.write(`${answer}\n`)
    const decision = yield* Fiber.join(fiber)
    return { decision, printed }
  })

describe("the terminal approval prompt (D-28)", () => {
  it.live("C3.1-a 'y' approves and the statement is shown as a block with client, token and connection", () =>
    Effect.gen(function*() {
      const { decision, printed } = yield* answering("y")
      expect(decision).toBe("approved")
      expect(printed).toContain("deletes every row of orders")
      expect(printed).toContain("│ DELETE FROM orders\n    │ -- no WHERE")
      expect(printed).toContain("claude-code 1.0")
      expect(printed).toContain("Sample (SQLite)")
    }))

  it.live("D-69: the dry run follows the statement: what it would change, row by row", () =>
    Effect.gen(function*() {
      const { printed } = yield* answering("n", withPreview)
      expect(printed).toContain(
        "│ -- no WHERE\n  Preview (run and rolled back): will delete 7 rows from orders.\n    • deleted: id=3, status='pending'\n    … and 6 more rows"
      )
    }))

  it.live("C3.1-f an empty answer (the default) or anything but yes denies", () =>
    Effect.gen(function*() {
      expect((yield* answering("")).decision).toBe("denied")
      expect((yield* answering("sure")).decision).toBe("denied")
      expect((yield* answering("YES")).decision).toBe("approved")
    }))
})
