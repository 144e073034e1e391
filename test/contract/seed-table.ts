/**
 * The seed-coverage table (seed-coverage.yaml): every operation and field the seed lists, with
 * what the seed says about it. Read by the coverage test (the contract has all of it) and the
 * marks test (the contract requires of a seed operation's answer nothing else unmarked).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const seedTypes = ['string', 'number', 'boolean', 'object', 'array', 'date-time', 'enum'] as const;
export type SeedType = (typeof seedTypes)[number];

export interface FieldRow {
  at: string;
  type?: SeedType;
  required?: boolean;
  enum?: string[];
  enum_if_declared?: string[];
  enum_if_declared_includes?: string[];
  pattern?: string;
  maxLength?: number;
  minimum?: number;
  format?: string;
  default?: string;
  prefix?: string;
  unit?: 'cents';
}

export interface FieldGroup {
  under: string;
  fields: Array<FieldRow | FieldGroup>;
}

export interface ParamRow {
  name: string;
  type: 'string';
  required: boolean;
}

export interface OperationRow {
  seed: string;
  method: string;
  path: string;
  server: 'base_url' | 'base_url_alt';
  api_key: 'required' | 'not_shown';
  success: number | 'unknown';
  request_body?: 'none';
  headers?: ParamRow[];
  path_params?: ParamRow[];
  body?: Array<FieldRow | FieldGroup>;
  response: { root: 'object' | 'array'; fields: Array<FieldRow | FieldGroup> };
}

export interface SeedTable {
  enums: Record<string, string[]>;
  operations: OperationRow[];
}

export const tablePath = new URL('./seed-coverage.yaml', import.meta.url);
export const table = parse(readFileSync(tablePath, 'utf8'), { maxAliasCount: -1 }) as SeedTable;

export function isGroup(entry: FieldRow | FieldGroup): entry is FieldGroup {
  return 'under' in entry;
}

/** Flattens `under` groups into plain rows with full locations. */
export function flattenFields(entries: Array<FieldRow | FieldGroup>, prefix = ''): FieldRow[] {
  const rows: FieldRow[] = [];
  for (const entry of entries) {
    if (isGroup(entry)) {
      rows.push(...flattenFields(entry.fields, joinLocation(prefix, entry.under)));
    } else {
      rows.push({ ...entry, at: joinLocation(prefix, entry.at) });
    }
  }
  return rows;
}

function joinLocation(prefix: string, at: string): string {
  if (!prefix) return at;
  return at.startsWith('[') ? `${prefix}${at}` : `${prefix}.${at}`;
}
