/**
 * A random id made when this copy of the shared package is evaluated. The shell and the remotes
 * show it: two different ids on one page mean the package was duplicated (federation sharing broke).
 */
export const sharedInstanceId: string = Math.random().toString(36).slice(2, 10);
