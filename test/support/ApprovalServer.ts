import { Context, Effect } from "effect"
import Database from "better-sqlite3"
import type { ApprovalDecision, PendingApproval } from "../../src/domain/Approval.ts"
import type { AccessLevel } from "../../src/domain/Principal.ts"
import { ApprovalPrompt } from "../../src/services/ApprovalPrompt.ts"
import { Approvals } from "../../src/services/Approvals.ts"
import { Connections } from "../../src/services/Connections.ts"
import { Tokens } from "../../src/services/Tokens.ts"
import { startTestServer, type TestServer } from "./TestServer.ts"

export interface ApprovalServer extends TestServer {
  /** Every app dialog shown, in order. */
  readonly asked: Array<PendingApproval>
  /** What the scripted app dialog answers next; "never" leaves it waiting (answer through `answer`). */
  script: (approval: PendingApproval) => ApprovalDecision | "never"
  readonly connectionId: string
  readonly samplePath: string
  readonly tokenFor: (access: AccessLevel) => Promise<string>
  readonly answer: (id: string, decision: ApprovalDecision) => Promise<boolean>
  readonly rows: (sql: string) => Array<any>
}

/** A server whose app dialog is scripted (D-28). */
export const startApprovalServer = async (): Promise<ApprovalServer> => {
  const asked: Array<PendingApproval> = []
  const holder: { script: (approval: PendingApproval) => ApprovalDecision | "never" } = { script: () => "approved" }
  const server = await startTestServer({
    approvalPrompt: ApprovalPrompt.scripted((approval) => holder.script(approval), asked)
  })
  const connections = await Effect.runPromise(Context.get(server.context, Connections).list)
  const sample = connections[0]!
  const samplePath = sample.type === "sqlite" ? sample.path : ""
  const extended = Object.assign(server, {
    asked,
    connectionId: sample.id,
    samplePath,
    tokenFor: async (access: AccessLevel) =>
      (await Effect.runPromise(
        Context.get(server.context, Tokens).create({ name: `approval ${access}`, access, connections: "all" })
      )).value,
    answer: (id: string, decision: ApprovalDecision) =>
      Effect.runPromise(Context.get(server.context, Approvals).answer(id, decision)),
    rows: (sql: string) => {
      const db = new Database(samplePath, { readonly: true })
      try {
        return db.prepare(sql).all()
      } finally {
        db.close()
      }
    }
  })
  Object.defineProperty(extended, "script", {
    get: () => holder.script,
    set: (value: (approval: PendingApproval) => ApprovalDecision | "never") => {
      holder.script = value
    }
  })
  return extended as unknown as ApprovalServer
}
