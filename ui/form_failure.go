package ui

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/payout"
)

// definiteRejection reports an error after which nothing was created by
// this attempt: stopped before sending, or an answer the payout
// pipeline's classifier reads as refused.
func definiteRejection(err error) bool {
	c := failureClass(err)
	return c != payout.ClassUnknown && c != ""
}

// createdNothing reports that the failed attempt certainly created
// nothing: the service refused it, or the form held it before sending.
func (fv *formView) createdNothing(err error) bool {
	return fv.heldErr(err) || definiteRejection(err)
}

// failureClass is the class of a failed send: the payout pipeline's
// (payout.ErrorClass: refused, unknown, or why it stopped before
// sending), else the classifier's reading of a payment's or mandate's
// answer (refused or unknown); "" for a check the pipeline could not make
// (nothing was sent).
func failureClass(err error) string {
	if c := payout.ErrorClass(err); c != "" {
		return c
	}
	var ps api.Problems
	if errors.As(err, &ps) {
		return payout.ClassInvalid
	}
	var stage *payout.StageError
	if errors.As(err, &stage) {
		return ""
	}
	return payout.Classify(err).Outcome
}

// keyUnusable reports a failure after which the form's key can never
// send this request: another request holds it.
func keyUnusable(err error) bool {
	var used *payout.IDUsedError
	return api.IsIdempotencyKeyReused(err) || errors.As(err, &used)
}

func (fv *formView) failureView(c *viewContext, w int) string {
	if fv.heldErr(fv.err) {
		return fv.spec.(heldSender).heldView(c, fv, fv.err, w)
	}
	var b strings.Builder
	noun := strings.ToUpper(fv.spec.noun()[:1]) + fv.spec.noun()[1:]
	class := failureClass(fv.err)
	sent := class == payout.ClassRefused || class == payout.ClassUnknown
	if sent || keyUnusable(fv.err) {
		b.WriteString(c.st.bad.Render("✗ "+noun+" not created") + "\n\n")
	} else {
		b.WriteString(c.st.bad.Render("✗ "+noun+" not sent") + "\n\n")
	}
	b.WriteString(errorDetails(c, fv, fv.err, w))
	b.WriteString("\n")
	// What the answer means is the payout pipeline's wording, the same as
	// payout create's and the batch's; the keys to act on it are the form's.
	keyName := strings.ReplaceAll(fv.spec.keyName(), "_", " ")
	advice := func(a payout.Answer) string {
		s := strings.ReplaceAll(a.Advice(), "transaction id", keyName)
		return strings.ToUpper(s[:1]) + s[1:] + "."
	}
	edit, retry, restart := keyOf(c.keys.Edit), keyOf(c.keys.Retry), keyOf(c.keys.NewForm)
	switch {
	case keyUnusable(fv.err):
		// Only an earlier attempt of this form can have used the key: one
		// whose answer was lost, before an edit. That one may exist.
		b.WriteString(c.st.warn.Render(wrapText("This edited "+fv.spec.noun()+" was not created, but an earlier attempt of this form reached the service under the same "+fv.spec.keyName()+
			" with the details as they were before your edit: that "+fv.spec.noun()+" may exist. Check it before sending this one: a fresh "+fv.spec.keyName()+" sends a second "+fv.spec.noun()+".", w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText(edit+" edits (a fresh "+fv.spec.keyName()+"), "+restart+" starts over.", w)) + "\n")
	case class == payout.ClassRefused:
		a := answerOf(fv.err)
		b.WriteString(c.st.muted.Render(wrapText(advice(a), w)) + "\n")
		if a.Reached {
			b.WriteString(c.st.muted.Render(wrapText(edit+" edits (a fresh "+fv.spec.keyName()+"), "+retry+" retries as is, "+restart+" starts over.", w)) + "\n")
		} else {
			b.WriteString(c.st.muted.Render(wrapText(retry+" sends it again, "+edit+" edits, "+restart+" starts over.", w)) + "\n")
		}
	case class == payout.ClassUnknown:
		b.WriteString(c.st.warn.Render(wrapText(advice(answerOf(fv.err))+" "+retry+" retries with the same "+fv.spec.keyName()+", so it can never be created twice.", w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText(edit+" edits (same key: if the first attempt arrived, the service keeps it and refuses the edit), "+restart+" discards and starts over.", w)) + "\n")
	case class == classHubAccess:
		// Sending again or editing cannot help: the token or its role is
		// what the hub refused, and only whoever runs it can change that.
		b.WriteString(c.st.warn.Render(wrapText("Nothing was sent: the team's hub does not take payouts from this token. "+restart+" starts over.", w)) + "\n")
	case class == "":
		b.WriteString(c.st.warn.Render(wrapText("Nothing was sent: the checks before sending could not be made. "+retry+" tries again, "+edit+" edits, "+restart+" starts over.", w)) + "\n")
	default:
		// Stopped before sending (funds, account, invalid): e goes to the
		// field at fault.
		b.WriteString(c.st.muted.Render(wrapText("Nothing was sent. "+edit+" goes to "+fv.name(errorPath(fv.err))+" to correct it, "+restart+" starts over.", w)) + "\n")
	}
	return b.String()
}

// answered is an error that carries the service's answer already
// classified by the pipeline (one relayed by the team's hub, which sent
// it): what it means is that answer's, not the relay's.
type answered interface {
	error
	answer() payout.Answer
}

// answerOf is what a failed send's answer means, in the pipeline's
// classifier's words.
func answerOf(err error) payout.Answer {
	var a answered
	if errors.As(err, &a) {
		return a.answer()
	}
	return payout.Classify(err)
}

// errorPath is the request path a failure names: its ErrorField (the payout
// pipeline's errors), else "".
func errorPath(err error) string {
	var f interface{ ErrorField() string }
	if errors.As(err, &f) {
		return f.ErrorField()
	}
	return ""
}

// errorDetails renders a service error (problem details, field errors,
// trace id) or any other error.
func errorDetails(c *viewContext, fv *formView, err error, w int) string {
	var b strings.Builder
	var ae *api.Error
	var ps api.Problems
	switch {
	case errors.As(err, &ps):
		b.WriteString(c.st.bold.Render("Fix these first:") + "\n")
		for _, d := range fv.described(ps) {
			b.WriteString(indent(wrapText(clean(d), w-2), "  ") + "\n")
		}
	case errors.As(err, &ae):
		title, detail := "HTTP "+itoa(ae.StatusCode), ""
		if p := ae.Problem; p != nil {
			if p.Title != "" {
				title = clean(p.Title) + " (HTTP " + itoa(ae.StatusCode) + ")"
			}
			detail = cleanLines(p.Detail)
		}
		b.WriteString(c.st.bold.Render(title) + "\n")
		if detail != "" {
			b.WriteString(wrapText(detail, w) + "\n")
		}
		if p := ae.Problem; p != nil && len(p.Errors) > 0 {
			fields := make([]string, 0, len(p.Errors))
			for f := range p.Errors {
				fields = append(fields, f)
			}
			slices.Sort(fields)
			b.WriteString("\n" + c.st.bold.Render("Field errors") + "\n")
			for _, f := range fields {
				// Whole, wrapped, and named as on the form.
				b.WriteString(indent(wrapText(clean(fv.name(f)+": "+fv.human(strings.Join(p.Errors[f], "; "))), w-2), "  ") + "\n")
			}
		}
		if ae.Problem == nil && len(ae.Body) > 0 {
			body := cleanLines(string(ae.Body))
			if len(body) > 300 {
				body = body[:300] + "…"
			}
			b.WriteString(wrapText(body, w) + "\n")
		}
		trace := ae.TraceID
		if trace == "" && ae.Problem != nil {
			trace = ae.Problem.TraceID
		}
		if trace != "" {
			b.WriteString(c.st.muted.Render("trace id "+clean(trace)) + "\n")
		}
		if ae.Method != "" {
			b.WriteString(c.st.muted.Render(ae.Method+" "+ae.URL) + "\n")
		}
	default:
		msg := cleanLines(err.Error())
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			msg = "timed out after " + sendTimeout.String() + ": " + msg
		}
		b.WriteString(wrapText(msg, w) + "\n")
	}
	return b.String()
}
