import { UsageError } from '../errors.js';

export type AreaLevel = 'province' | 'city' | 'district' | 'village';

/** A region row (docs/gateway.md, "Base URLs"). */
export interface Region {
  code: string;
  name: string;
  postal_code?: string | null;
}

/** The level whose code each lookup takes. */
export const PARENT_OF: Record<AreaLevel, AreaLevel | undefined> = { province: undefined, city: 'province', district: 'city', village: 'district' };

/** The API path of a region lookup (no /v2; docs/gateway.md, "Base URLs"). */
export function areaPath(level: AreaLevel, code?: string): string {
  if (level === 'province') return 'areas/province';
  if (code === undefined || code.trim() === '')
    throw new UsageError(`a ${PARENT_OF[level]} code is required`, {
      hint: `e.g. paycli areas ${level} ${({ city: '51', district: '5171', village: '517101' } as Record<string, string>)[level]}`,
    });
  return `areas/${level}/${encodeURIComponent(code)}`;
}

/** Region rows of a lookup's `Data` (checked by checkRegionsData first: a list; anything else reads as none). */
export function regionsFromData(data: unknown): Region[] {
  if (!Array.isArray(data)) return [];
  return data.map((r: Record<string, unknown>) => {
    const region: Region = { code: String(r.code ?? ''), name: String(r.name ?? '') };
    if ('postal_code' in r) region.postal_code = r.postal_code === null || r.postal_code === undefined ? null : String(r.postal_code);
    return region;
  });
}
