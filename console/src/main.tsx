/** Entry of the console bundle (scripts/buildConsole.mjs). */
import { createRoot } from 'react-dom/client';
import 'graphiql/graphiql.css';
import './styles.css';
import { App } from './App';

createRoot(document.getElementById('root')!).render(<App />);
