/**
 * The keys command as its user runs it: `npm run keys --` in a clone; the sandbox package's bins
 * (packages/sandbox) name their own, `pix-keys`, in PIX_KEYS_COMMAND.
 */
export function keysCommandName(env: { PIX_KEYS_COMMAND?: string | undefined } = process.env): string {
  return env.PIX_KEYS_COMMAND?.trim() || 'npm run keys --';
}
