/**
 * The company's colour on the payment page (D42) and the colours that stay legible with it,
 * by WCAG 2.2 contrast. Every colour leaves here as `#rrggbb`, which is what lets the page's
 * style take them unescaped.
 */

const DEFAULT_COLOR = '#0E7C66';

/** `#RGB` or `#RRGGBB` as six lower-case digits, or the default colour when it is not a hex colour. */
export function normalizeColor(color: string | undefined): string {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color ?? '');
  if (!match) return normalizeColor(DEFAULT_COLOR);
  const hex = match[1]!.toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((d) => d + d).join('') : hex}`;
}

/** WCAG 2.2 relative luminance of a hex colour. */
export function relativeLuminance(color: string): number {
  const hex = normalizeColor(color).slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const channel = parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.2 contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever contrasts more with the background colour. */
export function textColorOn(background: string): '#000000' | '#ffffff' {
  return contrastRatio(background, '#000000') >= contrastRatio(background, '#ffffff') ? '#000000' : '#ffffff';
}

/** The colours the page is painted with, all `#rrggbb`. */
export interface BrandColors {
  brand: string;
  onBrand: string;
  brandEdge: string;
}

export function brandColors(color: string | undefined): BrandColors {
  const brand = normalizeColor(color);
  return {
    brand,
    onBrand: textColorOn(brand),
    // A button in the brand colour needs a visible edge on the white card (WCAG 1.4.11, 3:1).
    brandEdge: contrastRatio(brand, '#ffffff') >= 3 ? brand : '#1f1f1f',
  };
}
