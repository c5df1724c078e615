package ui

import (
	"github.com/paydash/paydash/api"
)

func (fv *formView) resultID() string {
	switch r := fv.resp.(type) {
	case *api.PayoutRequest:
		return r.TransactionID
	case *api.PaymentResponse:
		return r.ID
	case *api.MandateResponse:
		return r.ID
	}
	return ""
}

func (fv *formView) resultToken() string {
	switch r := fv.resp.(type) {
	case *api.PaymentResponse:
		return r.ResourceToken
	case *api.MandateResponse:
		return r.ResourceToken
	}
	return ""
}
