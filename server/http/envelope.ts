import { asSerialised, type Serialised, type SerialisedText } from './define-operation.js';

/**
 * The seed's answer envelope `{status, message, data}` around `data` that is already JSON text
 * (a stored document), so that a read is answered without parsing and re-serialising it. The
 * contract check of every response in the server tests holds these answers to their schemas.
 */
export function envelopeJson<T>(status: number, message: string, dataJson: Serialised<T>): Serialised<{ status: number; message: string; data: T }> {
  return asSerialised(`{"status":${status},"message":${JSON.stringify(message)},"data":${dataJson}}`);
}

/** Most characters of stored JSON and bytes of answers an `EnvelopeBytes` keeps; past it, it starts over. */
const MAX_KEPT = 4 * 1024 * 1024;

/**
 * The answers of one kind of read (`status`, `message`) as the bytes sent, by the stored JSON text
 * they wrap: a record read again (the read cache hands back the same text) is answered with the
 * bytes made the first time, where the envelope's text would be joined, flattened and encoded as
 * UTF-8 again on every send. A record written since is another text, and so another answer.
 * Bounded (`MAX_KEPT`): texts of unknown records never come here, but many records could.
 */
export class EnvelopeBytes {
  readonly #kept = new Map<string, Uint8Array<ArrayBuffer>>();
  #size = 0;

  constructor(
    private readonly status: number,
    private readonly message: string,
    private readonly maxKept = MAX_KEPT,
  ) {}

  of<T>(dataJson: SerialisedText<T>): Serialised<{ status: number; message: string; data: T }> {
    let bytes = this.#kept.get(dataJson);
    if (bytes === undefined) {
      bytes = Buffer.from(envelopeJson(this.status, this.message, dataJson) as string);
      const size = dataJson.length + bytes.length;
      if (this.#size + size > this.maxKept) {
        this.#kept.clear();
        this.#size = 0;
      }
      if (size <= this.maxKept) {
        this.#kept.set(dataJson, bytes);
        this.#size += size;
      }
    }
    return asSerialised(bytes);
  }
}
