import { Effect, Layer } from "effect"
import { createInterface } from "node:readline"
import type { ApprovalDecision, PendingApproval } from "../domain/Approval.ts"
import { previewText } from "../domain/ApprovalPreview.ts"
import { ApprovalPrompt } from "./ApprovalPrompt.ts"

const block = (approval: PendingApproval): string => {
  const lines = [
    "",
    "── dbdesk: approval needed ─────────────────────────────",
    approval.message,
    `  connection: ${approval.connectionName}`,
    `  caller:     ${approval.principal}${approval.client === undefined ? "" : ` (${approval.client})`}`
  ]
  if (approval.statement !== undefined) {
    lines.push("  statement:")
    for (const line of approval.statement.split("\n")) lines.push(`    │ ${line}`)
  }
  if (approval.preview !== undefined) {
    for (const line of previewText(approval.preview).split("\n")) lines.push(`  ${line}`)
  }
  return lines.join("\n")
}

/**
 * The streams the prompt reads answers from and writes questions to (any Node readable and writable stream), named
 * without Node's types so the published declarations need no @types/node.
 */
export interface PromptInput {
  read(size?: number): unknown
}
export interface PromptOutput {
  write(text: string): unknown
}

/**
 * D-28: a terminal prompt when the server runs in a TTY.
 * One question at a time; anything but "y"/"yes" denies (Deny is the default).
 */
export const terminalApprovalPrompt = (input: PromptInput = process.stdin, output: PromptOutput = process.stderr) =>
  Layer.effect(
    ApprovalPrompt,
    Effect.gen(function*() {
      const oneAtATime = yield* Effect.makeSemaphore(1)
      const ask = (approval: PendingApproval) =>
        oneAtATime.withPermits(1)(Effect.async<ApprovalDecision>((resume) => {
          const readline = createInterface({
            input: input as NodeJS.ReadableStream,
            output: output as NodeJS.WritableStream,
            terminal: false
          })
          output.write(`${block(approval)}\n`)
          readline.question("Allow? [y/N] ", (answer) => {
            readline.close()
            resume(Effect.succeed(/^\s*y(es)?\s*$/i.test(answer) ? "approved" : "denied"))
          })
          return Effect.sync(() => {
            output.write("\n(the request ended before an answer; this question is withdrawn)\n")
            readline.close()
          })
        }))
      return { ask }
    })
  )
