import { createContext, useContext, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/**
 * Navigation as the shell gives it to remotes. Remotes do not share the shell's router (sharing
 * it would ship all of react-router to every page, docs/federation.md#shared-singletons); they navigate through this.
 */
export interface Navigation {
  /** A property, not a method: views take it out of the context unbound. */
  navigate: (to: string, options?: { replace?: boolean }) => void;
}

/** Outside the shell (a remote's standalone page) navigation is a full page load. */
const documentNavigation: Navigation = {
  navigate: (to, options) => {
    if (options?.replace) window.location.replace(to);
    else window.location.assign(to);
  },
};

const NavigationContext = createContext<Navigation>(documentNavigation);

export const NavigationProvider = NavigationContext.Provider;

export function useNavigation(): Navigation {
  return useContext(NavigationContext);
}

export interface AppLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
}

/** A link that navigates within the single-page app, and stays a real link (new tab, copy). */
export function AppLink({ to, onClick, children, ...rest }: AppLinkProps) {
  const { navigate } = useNavigation();
  const handleClick = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    const modified = event.metaKey || event.altKey || event.ctrlKey || event.shiftKey;
    if (event.defaultPrevented || event.button !== 0 || modified || rest.target) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={handleClick} {...rest}>
      {children}
    </a>
  );
}
