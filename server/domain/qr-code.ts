import QRCode from 'qrcode';

/** The QR image of a Pix code as a PNG `data:` URI (`brCodeBase64`). */
export async function qrPngDataUri(text: string): Promise<string> {
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });
}
