/** The page's entry: render the app and feed the store from the console's event stream. */
import { render } from 'preact';
import { streamEvents } from './api.js';
import { App } from './app.js';
import { store } from './store.js';

streamEvents(
  (event) => store.apply(event),
  (open) => store.setLive(open),
);
const root = document.getElementById('app')!;
// Preact renders beside what is already there: the loading line goes first.
root.replaceChildren();
render(<App />, root);
