import { nodeOrigin, type SearchConnectionSettings, type SearchNode } from "../domain/SearchConnection.ts"

/**
 * D-59: a search connection's nodes with the official `typesense` client's semantics (its ApiCall.ts,
 * read in node_modules/typesense 3.1.0): the nodes are shuffled once unless `randomizeNodes` is false; every node starts healthy; a request goes to the nearest node while it is
 * healthy, else to the next node in turn that is healthy or whose last check is older than
 * `healthcheckIntervalSeconds` (and, when none is, to the next one anyway); an answer with a status from 1 to 499 marks
 * the node healthy, a 5xx or a failure to get an answer marks it unhealthy and the request is tried again, at most
 * `numRetries` more times, `retryIntervalSeconds` apart; `connectionTimeoutSeconds` bounds each try.
 */
export interface ClusterPolicy {
  readonly numRetries: number
  readonly retryIntervalMs: number
  /** Each try's bound; undefined for a single node configured before clusters (it had none). */
  readonly timeoutMs: number | undefined
  readonly healthcheckIntervalMs: number
}

/** The official client's defaults (Configuration.ts): 5 s, 60 s, one retry per node, 0.1 s between tries. */
export const OFFICIAL_DEFAULTS = {
  connectionTimeoutSeconds: 5,
  healthcheckIntervalSeconds: 60,
  retryIntervalSeconds: 0.1
} as const

/**
 * A connection with more than one node or a nearest node gets the official defaults for what it leaves out; a single
 * node keeps its behaviour from before clusters (no retry, no per-try bound) unless it sets them.
 */
export const clusterPolicy = (settings: SearchConnectionSettings): ClusterPolicy => {
  const cluster = settings.cluster
  const isCluster = settings.allNodes.length > 1 || cluster.nearestNode !== undefined
  const nodeCount = settings.allNodes.length + (cluster.nearestNode === undefined ? 0 : 1)
  const timeout = cluster.connectionTimeoutSeconds ??
    (isCluster ? OFFICIAL_DEFAULTS.connectionTimeoutSeconds : undefined)
  return {
    numRetries: cluster.numRetries ?? (isCluster ? nodeCount : 0),
    retryIntervalMs: (cluster.retryIntervalSeconds ?? OFFICIAL_DEFAULTS.retryIntervalSeconds) * 1000,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    healthcheckIntervalMs: (cluster.healthcheckIntervalSeconds ?? OFFICIAL_DEFAULTS.healthcheckIntervalSeconds) * 1000
  }
}

export interface NodeState {
  /** "nearest" or the node's position (1 for host and port, 2… for the further nodes). */
  readonly label: string
  readonly node: SearchNode
  readonly origin: string
  healthy: boolean
  /** When the node last answered or failed (ms): the health-check interval counts from here. */
  lastAccess: number
  /** The last failure seen on this node, for the dashboard. */
  lastError: string | undefined
}

/** The node choice of the official client's getNextNode, with the clock passed in. */
export class NodeRotation {
  readonly nodes: ReadonlyArray<NodeState>
  readonly nearest: NodeState | undefined
  private current = -1

  constructor(
    nodes: ReadonlyArray<SearchNode>,
    nearest: SearchNode | undefined,
    private readonly healthcheckIntervalMs: number,
    now: number,
    randomize: boolean
  ) {
    const state = (node: SearchNode, label: string): NodeState => ({
      label,
      node,
      origin: nodeOrigin(node),
      healthy: true,
      lastAccess: now,
      lastError: undefined
    })
    const labelled = nodes.map((node, index) => state(node, String(index + 1)))
    // Configuration.ts shuffleArray: Fisher–Yates over the node list
    if (randomize) {
      for (let i = labelled.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1))
        ;[labelled[i], labelled[j]] = [labelled[j]!, labelled[i]!]
      }
    }
    this.nodes = labelled
    this.nearest = nearest === undefined ? undefined : state(nearest, "nearest")
  }

  private due(node: NodeState, now: number): boolean {
    return now - node.lastAccess > this.healthcheckIntervalMs
  }

  next(now: number): NodeState {
    if (this.nearest !== undefined && (this.nearest.healthy || this.due(this.nearest, now))) return this.nearest
    let candidate = this.nodes[0]!
    for (let i = 0; i <= this.nodes.length; i++) {
      this.current = (this.current + 1) % this.nodes.length
      candidate = this.nodes[this.current]!
      if (candidate.healthy || this.due(candidate, now)) return candidate
    }
    return candidate
  }

  mark(node: NodeState, healthy: boolean, now: number, error?: string): void {
    node.healthy = healthy
    node.lastAccess = now
    if (!healthy) node.lastError = error
  }

  /** Every node, nearest first, as the dashboard and the connection form show them. */
  all(): ReadonlyArray<NodeState> {
    return this.nearest === undefined ? this.nodes : [this.nearest, ...this.nodes]
  }
}
