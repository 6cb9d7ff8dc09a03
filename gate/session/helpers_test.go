package session

import (
	"errors"

	"github.com/perfgate/perfgate/gate/ready"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func readyInterrupted() error { return ready.ErrInterrupted }
