import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, openSync, rmSync } from "node:fs"
import { randomUUID } from "node:crypto"
import Database from "better-sqlite3"
import { Data, Effect } from "effect"
import { makeRandom } from "../domain/SeededRandom.ts"

export class SampleDatabaseError extends Data.TaggedError("SampleDatabaseError")<{
  readonly path: string
  readonly cause: unknown
}> {}

const FIRST = [
  "Ava",
  "Liam",
  "Olivia",
  "Noah",
  "Emma",
  "Lucas",
  "Mia",
  "Ethan",
  "Sofia",
  "Mateo",
  "Chloe",
  "Leo",
  "Amara",
  "Hiro",
  "Priya",
  "Jonas",
  "Fatima",
  "Diego",
  "Nora",
  "Kwame",
  "Elena",
  "Omar",
  "Yuki",
  "Grace"
]
const LAST = [
  "Smith",
  "Garcia",
  "Nguyen",
  "Müller",
  "Rossi",
  "Kowalski",
  "Okafor",
  "Tanaka",
  "Silva",
  "Dubois",
  "Johansson",
  "Patel",
  "O'Brien",
  "Kim",
  "Novak",
  "Haddad",
  "Jensen",
  "Moreau",
  "Costa",
  "Schmidt"
]
const CITIES: ReadonlyArray<readonly [string, string]> = [
  ["Lisbon", "Portugal"],
  ["Berlin", "Germany"],
  ["Lyon", "France"],
  ["Austin", "United States"],
  ["Toronto", "Canada"],
  ["Osaka", "Japan"],
  ["Lagos", "Nigeria"],
  ["Melbourne", "Australia"],
  ["Kraków", "Poland"],
  ["São Paulo", "Brazil"],
  ["Dublin", "Ireland"],
  ["Pune", "India"]
]
const CATEGORIES: Record<string, ReadonlyArray<string>> = {
  Kitchen: ["Chef's Knife", "Cast Iron Skillet", "French Press", "Cutting Board", "Spice Grinder"],
  Office: ["Desk Lamp", "Notebook", "Fountain Pen", "Monitor Stand", "Ergonomic Mouse"],
  Outdoor: ["Trail Backpack", "Camping Stove", "Rain Jacket", "Water Bottle", "Headlamp"],
  Home: ["Throw Blanket", "Ceramic Vase", "Scented Candle", "Wall Clock", "Linen Pillow"]
}
const EDITIONS = ["Classic", "Pro", "Mini"]
const STATUSES = ["delivered", "delivered", "delivered", "shipped", "pending", "cancelled", "refunded"]

const SCHEMA = `
CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  first_name TEXT NOT NULL,
  last_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY,
  sku TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  category TEXT NOT NULL,
  price REAL NOT NULL CHECK (price >= 0),
  stock INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  order_date TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled', 'refunded')),
  total REAL NOT NULL DEFAULT 0
);
CREATE TABLE order_items (
  id INTEGER PRIMARY KEY,
  order_id INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
  product_id INTEGER NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL CHECK (quantity > 0),
  unit_price REAL NOT NULL
);
CREATE INDEX idx_orders_customer_id ON orders(customer_id);
CREATE INDEX idx_orders_order_date ON orders(order_date);
CREATE INDEX idx_order_items_order_id ON order_items(order_id);
CREATE INDEX idx_order_items_product_id ON order_items(product_id);
CREATE INDEX idx_products_category ON products(category);
`

export const SAMPLE_SIZES = { customers: 400, products: 60, orders: 1200 } as const

const day = (offset: number): string => new Date(Date.UTC(2023, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10)

const fill = (db: Database.Database): void => {
  const random = makeRandom(20240501)
  db.exec(SCHEMA)
  const customer = db.prepare("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)")
  for (let id = 1; id <= SAMPLE_SIZES.customers; id++) {
    const first = random.pick(FIRST)
    const last = random.pick(LAST)
    const [city, country] = random.pick(CITIES)
    const email = `${first}.${last}${id}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, "")
    customer.run(id, first, last, email, city, country, day(random.int(0, 540)))
  }
  const product = db.prepare("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)")
  const prices: Array<number> = []
  let productId = 0
  for (const [category, names] of Object.entries(CATEGORIES)) {
    for (const name of names) {
      for (const edition of EDITIONS) {
        productId++
        const price = Math.round(random.int(499, 18999)) / 100
        prices[productId] = price
        product.run(
          productId,
          `${category.slice(0, 3).toUpperCase()}-${String(productId).padStart(4, "0")}`,
          `${name} ${edition}`,
          category,
          price,
          random.int(0, 250)
        )
      }
    }
  }
  const order = db.prepare("INSERT INTO orders VALUES (?, ?, ?, ?, ?)")
  const item = db.prepare("INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (?, ?, ?, ?)")
  const orderTotal = db.prepare("UPDATE orders SET total = ? WHERE id = ?")
  for (let id = 1; id <= SAMPLE_SIZES.orders; id++) {
    let total = 0
    const lines = random.int(1, 5)
    order.run(id, random.int(1, SAMPLE_SIZES.customers), day(random.int(30, 700)), random.pick(STATUSES), 0)
    for (let line = 0; line < lines; line++) {
      const productRef = random.int(1, productId)
      const quantity = random.int(1, 4)
      item.run(id, productRef, quantity, prices[productRef]!)
      total += quantity * prices[productRef]!
    }
    orderTotal.run(Math.round(total * 100) / 100, id)
  }
  db.pragma("user_version = 1")
}

/**
 * Creates the embedded sample database at `path` on first start (D-16): built at a temp
 * path, then linked into place so a crash never leaves a half-built file and a concurrent start never
 * overwrites it. Does nothing when the file exists.
 */
export const ensureSampleDatabase = Effect.fn("SampleDatabase.ensure")(function*(path: string) {
  if (existsSync(path)) return false
  const temp = `${path}.${randomUUID()}.tmp`
  return yield* Effect.try({
    try: () => {
      const db = new Database(temp)
      try {
        // Built at a private temp path: the journal in memory and no per-commit sync; one fsync below before it is linked in.
        db.pragma("journal_mode = MEMORY")
        db.pragma("synchronous = OFF")
        db.transaction(() => fill(db))()
      } finally {
        db.close()
      }
      const fd = openSync(temp, "r")
      try {
        fsyncSync(fd)
      } finally {
        closeSync(fd)
      }
      // Every file of the support directory is 0600, this one too (D-7).
      chmodSync(temp, 0o600)
      try {
        linkSync(temp, path)
        return true
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
        throw error
      }
    },
    catch: (cause) => new SampleDatabaseError({ path, cause })
  }).pipe(Effect.ensuring(Effect.sync(() => rmSync(temp, { force: true }))))
})
