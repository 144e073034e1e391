import { asSerialised, type Serialised } from './define-operation.js';

/**
 * The seed's answer envelope `{status, message, data}` around `data` that is already JSON text
 * (a stored document), so that a read is answered without parsing and re-serialising it. The
 * contract check of every response in the server tests holds these answers to their schemas.
 */
export function envelopeJson<T>(status: number, message: string, dataJson: Serialised<T>): Serialised<{ status: number; message: string; data: T }> {
  return asSerialised(`{"status":${status},"message":${JSON.stringify(message)},"data":${dataJson}}`);
}
