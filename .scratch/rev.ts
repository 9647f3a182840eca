import mongoose from "mongoose";
const s = new mongoose.Schema({ a: String }, { optimisticConcurrency: true });
console.log(s.options.optimisticConcurrency, s.options.versionKey);
