import type { ApiKeyRecord, CompanyRecord, DueDelivery, IdempotencyClaim } from '../types.js';

/** A record kept as its API document, JSON text returned as it was written. */
export interface DocRow {
  doc: string;
}

export function docOf<T>(row: DocRow | undefined): T | undefined {
  return row ? (JSON.parse(row.doc) as T) : undefined;
}

/** A page of a list (D48) made by the engine: its records' JSON array as bytes. */
export interface ListPageRow {
  json: Uint8Array;
  /** Records on the page. */
  n: number;
}

/** A record's position in its list's order (D48). */
export interface ListPositionRow {
  created_at: string;
  id: string;
}

/** A due delivery with its event and webhook. */
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

/** A NULL `pix_key` is a company without a key of its own. */
export interface CompanyRow {
  city: string;
  color: string;
  pix_key: string | null;
  doc: string;
}

export function companyOfRow(row: CompanyRow): CompanyRecord {
  return { doc: JSON.parse(row.doc), city: row.city, color: row.color, ...(row.pix_key !== null ? { pixKey: row.pix_key } : {}) };
}

export interface ApiKeyRow {
  id: string;
  company_id: string;
  secret_hash: string;
  created_at: string;
}

export function apiKeyOfRow(row: ApiKeyRow): ApiKeyRecord {
  return { id: row.id, companyId: row.company_id, secretHash: row.secret_hash, createdAt: row.created_at };
}

/** A NULL `status` is a claim whose request has not finished. */
export interface IdempotencyRow {
  fingerprint: string;
  lease_until: string;
  expires_at: string;
  status: number | null;
  body: string | null;
}

/**
 * What a key already stored means to a new claim at `now` with `fingerprint`; undefined when the key
 * is free to take over: past its retention, or unfinished with its lease run out (its request
 * died). Times are compared as strings, alike on both engines (no collation in play).
 */
export function claimOfStoredKey(row: IdempotencyRow, now: string, fingerprint: string): Exclude<IdempotencyClaim, { kind: 'claimed' }> | undefined {
  const usable = row.expires_at > now && (row.status !== null || row.lease_until > now);
  if (!usable) return undefined;
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.status === null) return { kind: 'in-flight' };
  return { kind: 'replay', status: row.status, body: row.body ?? '' };
}
