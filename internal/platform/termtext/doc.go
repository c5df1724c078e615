// Package termtext is the one place where text from outside (payee names,
// references, webhook bodies, service error texts, CSV cells, config values,
// relay events) is made safe to print on a terminal.
//
// A terminal obeys control characters and escape sequences: an ESC in a
// payee name could move the cursor, rewrite a line already on screen (an
// amount, an IBAN), set the window title or, with OSC 52, the clipboard. A
// bidi override can make "GB29…1234" read as another account. So every
// such character is shown as a visible escape (\x1b, \u202e) instead of
// being sent to the terminal. JSON and CSV output keep the exact data and
// do not pass through here.
//
// It imports nothing of paydash.
package termtext
