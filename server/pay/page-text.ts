/**
 * What the payment page (D42) says in words and numbers, in Portuguese: the amount in reais,
 * the time left, the state of the payment and the closing message of a paid or expired charge.
 */
import type { ChargeDoc } from '../store/types.js';

// Made at the first amount written, not when the server starts: loading the locale's data takes
// about 11 ms, a tenth of a start.
let brl: Intl.NumberFormat | undefined;

/** An amount in cents as Brazilians write it: `R$ 129,90` (with a no-break space after `R$`). */
export function formatBrl(cents: number): string {
  brl ??= new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
  return brl.format(cents / 100);
}

/** `mm:ss` (or `h:mm:ss` beyond 60 minutes) left until `expiresAt`, never negative. */
export function countdownText(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  // Up to the charge's 60 minutes as `mm:ss`; hours only beyond that.
  if (total <= 3600) return `${pad(Math.floor(total / 60))}:${pad(total % 60)}`;
  return `${Math.floor(total / 3600)}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

export const statusLabels: Record<ChargeDoc['paymentStatus'], string> = {
  PENDING: 'Aguardando pagamento',
  PROCESSING: 'Pagamento em processamento…',
  PAID: 'Pagamento confirmado',
  RECEIVED: 'Pagamento confirmado',
  EXPIRED: 'Cobrança expirada',
};

/** What the amount is, above it: what is left to pay, or what was paid. */
export function amountLabel(status: ChargeDoc['status']): string {
  return status === 'PAID' ? 'Valor pago' : 'Valor a pagar';
}

/** The address itself when it is http(s), so that a `javascript:` or other scheme never becomes the way back. */
function httpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** What a paid or expired charge's page says, and where it leads back to the shop. */
export function finalText(charge: ChargeDoc, amount: string): { title: string; text: string; link?: string } {
  if (charge.status === 'PAID') {
    const link = httpUrl(charge.successUrl);
    return { title: 'Pagamento confirmado', text: `Obrigado! O pagamento de ${amount} foi confirmado.`, ...(link ? { link } : {}) };
  }
  const link = httpUrl(charge.failedUrl);
  return { title: 'Cobrança expirada', text: 'O prazo para pagar esta cobrança terminou. Nenhum valor foi cobrado.', ...(link ? { link } : {}) };
}
