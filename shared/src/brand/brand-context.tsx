import { createContext, useContext } from 'react';
import type { Brand } from '../config/types';
import { defaultBrand } from './brand';

const BrandContext = createContext<Brand>(defaultBrand);

/** Supplies the configured brand; without a provider, the defaults. */
export const BrandProvider = BrandContext.Provider;

/** The brand in force (product name, support email, store links, the site's policy pages). */
export function useBrand(): Brand {
  return useContext(BrandContext);
}
