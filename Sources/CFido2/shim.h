#include <fido.h>
#include <fido/es256.h>
#include <fido/eddsa.h>
#include <fido/rs256.h>
