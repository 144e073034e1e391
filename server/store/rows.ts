import type { CompanyRecord, DueDelivery } from './types.js';

/** A due delivery as both engines select it (the same columns, the same names). */
export interface DueDeliveryRow {
  event_id: string;
  webhook_id: string;
  company_id: string;
  type: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
}

export function dueDeliveryOf(row: DueDeliveryRow): DueDelivery {
  return {
    eventId: row.event_id,
    webhookId: row.webhook_id,
    companyId: row.company_id,
    type: row.type as DueDelivery['type'],
    body: row.body,
    attempts: row.attempts,
    url: row.url,
    secret: row.secret,
  };
}

/** A company as both engines select it; a NULL `pix_key` is a company without a key of its own. */
export interface CompanyRow {
  city: string;
  color: string;
  pix_key: string | null;
  doc: string;
}

export function companyOfRow(row: CompanyRow): CompanyRecord {
  return { doc: JSON.parse(row.doc), city: row.city, color: row.color, ...(row.pix_key !== null ? { pixKey: row.pix_key } : {}) };
}
