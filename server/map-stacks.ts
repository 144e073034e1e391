// The compiled server's first module (server/main.ts imports it before any other): from here on,
// its stacks are written with the sources' places, the source map read when one is first written.
import { mapStacksOnFirstUse } from './mapped-stacks.js';

mapStacksOnFirstUse(import.meta.url);
