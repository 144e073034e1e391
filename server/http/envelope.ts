/**
 * The seed's answer envelope `{status, message, data}` around `data` that is already JSON text
 * (a stored document), so that a read is answered without parsing and re-serialising it. The
 * contract check of every response in the server tests holds these answers to their schemas.
 */
export function envelopeJson(status: number, message: string, dataJson: string): string {
  return `{"status":${status},"message":${JSON.stringify(message)},"data":${dataJson}}`;
}
