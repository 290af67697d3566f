const fs=require('fs'),path=require('path');
const root=process.argv[2]; const seen=new Set();
function resolve(from,name){ let d=from; while(true){ const p=path.join(d,'node_modules',name); if(fs.existsSync(path.join(p,'package.json'))) return p; const up=path.dirname(d); if(up===d) return null; d=up; } }
function walk(dir){ if(seen.has(dir))return; seen.add(dir); const pj=JSON.parse(fs.readFileSync(path.join(dir,'package.json'))); for(const n of Object.keys(Object.assign({},pj.dependencies||{},pj.optionalDependencies||{}))){ const p=resolve(dir,n); if(p) walk(p);} }
for(const n of process.argv.slice(3)) walk(path.join(root,'node_modules',n));
console.log([...seen].map(p=>path.relative(root,p)).join('\n'));
