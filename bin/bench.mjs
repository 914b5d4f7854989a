#!/usr/bin/env node
// `npm run bench` (product-decisions §11) is not built yet: see issue "Benchmarks side by side".
console.error("dbdesk bench: not built yet. The benchmark suite (dbdesk vs the official SDK server vs a bare node:http ceiling) is an open issue.")
process.exit(1)
