/**
 * Starts the shop (examples/shop/shop.ts) against a running service:
 *
 *   PIX_API_KEY=sk_… npx tsx examples/shop/main.ts
 *   curl -s -X POST http://127.0.0.1:4100/orders -d '{"quantity":2}'     # → the order, with payUrl
 *
 * Open payUrl and press "Simular pagamento" (or POST /charge/{id}/simulate-payment); then
 * GET /orders/{id} answers "status":"PAID". Ctrl-C stops it and deletes its webhook registration.
 */
import { startShop } from './shop.js';

const apiKey = process.env.PIX_API_KEY;
if (!apiKey) {
  console.error('shop: set PIX_API_KEY to the sk_… key of your company (npm start prints one on an empty database).');
  process.exit(2);
}
const shop = await startShop({
  baseUrl: process.env.PIX_BASE_URL ?? 'http://localhost:3000',
  baseUrlAlt: process.env.PIX_BASE_URL_ALT ?? 'http://localhost:3000',
  apiKey,
  port: Number(process.env.SHOP_PORT ?? 4100),
  ...(process.env.SHOP_PUBLIC_URL ? { publicUrl: process.env.SHOP_PUBLIC_URL } : {}),
});
console.log(`shop: listening on ${shop.url} (POST /orders, GET /orders/{id}, webhooks at /webhooks/pix)`);
// Ctrl-C or a stop: the shop deletes its webhook registration on its way out.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    shop.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`shop: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  });
