/**
 * The postgres project's setup file (vitest.config.ts): a test file's PostgreSQL test stores reuse
 * the schemas of the stores it closed, emptied, instead of migrating a new schema each
 * (server/test-support/engines.ts); the schemas left go when the file ends.
 */
import { afterAll } from 'vitest';
import { dropIdleSchemas, reuseSchemas } from './engines.js';

reuseSchemas();
afterAll(dropIdleSchemas);
