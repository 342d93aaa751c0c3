package dev.jccl.reduce;

/** The bfloat16 conversions; its hand-computed cases are the tables BFloat16Test.*.csv beside it. */
class BFloat16Test extends SmallFloatConversionContract {

    BFloat16Test() {
        super(ConversionChecks.BFLOAT16, 0x5eed_bf16L);
    }
}
