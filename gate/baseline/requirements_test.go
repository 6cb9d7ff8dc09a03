package baseline

// DefaultRequirements are the requirements perfgate baseline update uses by
// default: verdict.DefaultPolicy's MinTrials and MaxInvalidShare, which the
// store does not import (the command derives them from the policy, so the
// numbers have one home there). Only the tests need them here.
func DefaultRequirements() Requirements {
	return Requirements{MinTrials: 3, MaxInvalidShare: 0.25}
}
