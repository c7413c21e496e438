// The declaration in ss_fuzz.h is all this target has; see there.
