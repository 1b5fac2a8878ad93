// The GFM plugin ships no types: it is a Turndown plugin (a function given the service).
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
}
