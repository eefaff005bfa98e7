// Templates as tagged strings (htm) rendered by preact: no build step, and every value is set as text or a
// property, never parsed as HTML, so pod names and event messages cannot inject markup.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
