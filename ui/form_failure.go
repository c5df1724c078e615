package ui

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"

	"github.com/paydash/paydash/api"
)

// definiteRejection reports an error after which the service certainly
// created nothing: it answered with a 4xx other than timeout, conflict or
// rate limit.
func definiteRejection(err error) bool { return api.IsRefusal(err) }

// createdNothing reports that the failed attempt certainly created
// nothing: the service refused it, or the form held it before sending.
func (fv *formView) createdNothing(err error) bool {
	return fv.heldErr(err) || definiteRejection(err)
}

func (fv *formView) failureView(c *viewContext, w int) string {
	if fv.heldErr(fv.err) {
		return fv.spec.(heldSender).heldView(c, fv, fv.err, w)
	}
	var b strings.Builder
	b.WriteString(c.st.bad.Render("✗ "+strings.ToUpper(fv.spec.noun()[:1])+fv.spec.noun()[1:]+" not created") + "\n\n")
	b.WriteString(errorDetails(c, fv, fv.err, w))
	b.WriteString("\n")
	switch {
	case api.IsIdempotencyKeyReused(fv.err):
		// Only an earlier attempt of this form can have used the key: one
		// whose answer was lost, before an edit. That one may exist.
		b.WriteString(c.st.warn.Render(wrapText("This edited "+fv.spec.noun()+" was not created, but an earlier attempt of this form reached the service under the same "+fv.spec.keyName()+
			" with the details as they were before your edit: that "+fv.spec.noun()+" may exist. Check it before sending this one: a fresh "+fv.spec.keyName()+" sends a second "+fv.spec.noun()+".", w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText(keyOf(c.keys.Edit)+" edits (a fresh "+fv.spec.keyName()+"), "+keyOf(c.keys.NewForm)+" starts over.", w)) + "\n")
	case fv.definite:
		b.WriteString(c.st.muted.Render(wrapText("The service refused it, so nothing was created. "+keyOf(c.keys.Edit)+" edits (a fresh "+fv.spec.keyName()+"), "+keyOf(c.keys.Retry)+" retries as is, "+keyOf(c.keys.NewForm)+" starts over.", w)) + "\n")
	default:
		b.WriteString(c.st.warn.Render(wrapText("The request may or may not have reached the service. "+keyOf(c.keys.Retry)+" retries with the same "+fv.spec.keyName()+", so it can never be created twice.", w)) + "\n")
		b.WriteString(c.st.muted.Render(wrapText(keyOf(c.keys.Edit)+" edits (same key: if the first attempt arrived, the service keeps it and refuses the edit), "+keyOf(c.keys.NewForm)+" discards and starts over.", w)) + "\n")
	}
	return b.String()
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
