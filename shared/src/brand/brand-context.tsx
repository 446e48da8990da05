import { createContext, useContext, useMemo } from 'react';
import type { Brand } from '../config/types';
import { defaultBrand, withBrandPages, type BrandPages, type SiteBrand } from './brand';

const BrandContext = createContext<Brand & Partial<BrandPages>>(defaultBrand);

/** Supplies the configured brand; without a provider, the defaults. */
export const BrandProvider = BrandContext.Provider;

/** The brand in force (product name, support email, store links, the site's policy pages). */
export function useBrand(): SiteBrand {
  const brand = useContext(BrandContext);
  return useMemo(() => withBrandPages(brand), [brand]);
}
