// Stop-word lists as data. Sources (word lists are facts, one word per entry, kept in the
// source's order; entries that are not one word by our tokenizer — English contractions such as
// "i'm", Romanian hyphenated forms — are left out, since the tokenizer splits them):
// - Snowball's lists (snowballstem/snowball-website, algorithms/<language>/stop.txt) for every
//   language but Turkish; Romanian from the site's algorithms/romanian1/stop.txt, each word also
//   in its comma-below spelling (ș, ț) beside the cedilla one (ş, ţ) the list uses.
// - Turkish: Snowball publishes none; Apache Lucene's Turkish list (analysis/tr/stopwords.txt).
extension StopWords {
    static let danish = words("""
        og i jeg det at en den til er som på de med han af for ikke der var mig sig men et har om vi min havde \
        ham hun nu over da fra du ud sin dem os op man hans hvor eller hvad skal selv her alle vil blev kunne \
        ind når være dog noget ville jo deres efter ned skulle denne end dette mit også under have dig anden \
        hende mine alt meget sit sine vor mod disse hvis din nogle hos blive mange ad bliver hendes været thi \
        jer sådan
        """)

    static let dutch = words("""
        de en van ik te dat die in een hij het niet zijn is was op aan met als voor had er maar om hem dan zou \
        of wat mijn men dit zo door over ze zich bij ook tot je mij uit der daar haar naar heb hoe heeft hebben \
        deze u want nog zal me zij nu ge geen omdat iets worden toch al waren veel meer doen toen moet ben \
        zonder kan hun dus alles onder ja eens hier wie werd altijd doch wordt wezen kunnen ons zelf tegen na \
        reeds wil kon niets uw iemand geweest andere
        """)

    static let english = words("""
        i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers \
        herself it its itself they them their theirs themselves what which who whom this that these those am is \
        are was were be been being have has had having do does did doing would should could ought cannot a an \
        the and but if or because as until while of at by for with about against between into through during \
        before after above below to from up down in out on off over under again further then once here there \
        when where why how all any both each few more most other some such no nor not only own same so than too \
        very
        """)

    static let finnish = words("""
        olla olen olet on olemme olette ovat ole oli olisi olisit olisin olisimme olisitte olisivat olit olin \
        olimme olitte olivat ollut olleet en et ei emme ette eivät minä minun minut minua minussa minusta minuun \
        minulla minulta minulle sinä sinun sinut sinua sinussa sinusta sinuun sinulla sinulta sinulle hän hänen \
        hänet häntä hänessä hänestä häneen hänellä häneltä hänelle me meidän meidät meitä meissä meistä meihin \
        meillä meiltä meille te teidän teidät teitä teissä teistä teihin teillä teiltä teille he heidän heidät \
        heitä heissä heistä heihin heillä heiltä heille tämä tämän tätä tässä tästä tähän tällä tältä tälle tänä \
        täksi tuo tuon tuota tuossa tuosta tuohon tuolla tuolta tuolle tuona tuoksi se sen sitä siinä siitä \
        siihen sillä siltä sille siksi nämä näiden näitä näissä näistä näihin näillä näiltä näille näinä näiksi \
        nuo noiden noita noissa noista noihin noilla noilta noille noina noiksi ne niiden niitä niissä niistä \
        niihin niillä niiltä niille niinä niiksi kuka kenen kenet ketä kenessä kenestä keneen kenellä keneltä \
        kenelle kenenä keneksi ketkä keiden keitä keissä keistä keihin keillä keiltä keille keinä keiksi mikä \
        minkä mitä missä mistä mihin millä miltä mille miksi mitkä joka jonka jota jossa josta johon jolla jolta \
        jolle jona joksi jotka joiden joita joissa joista joihin joilla joilta joille joina joiksi että ja jos \
        joten koska kuin mutta niin sekä tai vaan vai vaikka kanssa mukaan noin poikki yli kun nyt itse
        """)

    static let french = words("""
        au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me même mes moi mon ne nos \
        notre nous on ou par pas pour qu que qui sa se ses sur ta te tes toi ton tu un une vos votre vous c d j \
        l à m n s t y étée étées étant suis es êtes sont serai seras sera serons serez seront serais serait \
        serions seriez seraient étais était étions étiez étaient fus fut fûmes fûtes furent sois soit soyons \
        soyez soient fusse fusses fussions fussiez fussent ayant eu eue eues eus ai avons avez ont aurai aurons \
        aurez auront aurais aurait aurions auriez auraient avais avait aviez avaient eut eûmes eûtes eurent aie \
        aies ait ayons ayez aient eusse eusses eût eussions eussiez eussent ceci cela celà cet cette ici ils les \
        leurs quel quels quelle quelles sans soi
        """)

    static let german = words("""
        aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anderm \
        andern anderr anders auch auf aus bei bin bis bist da damit dann der den des dem die das daß derselbe \
        derselben denselben desselben demselben dieselbe dieselben dasselbe dazu dein deine deinem deinen deiner \
        deines denn derer dessen dich dir du dies diese diesem diesen dieser dieses doch dort durch ein eine \
        einem einen einer eines einig einige einigem einigen einiger einiges einmal er ihn ihm es etwas euer \
        eure eurem euren eurer eures für gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich mich \
        mir ihr ihre ihrem ihren ihrer ihres euch im in indem ins ist jede jedem jeden jeder jedes jene jenem \
        jenen jener jenes jetzt kann kein keine keinem keinen keiner keines können könnte machen man manche \
        manchem manchen mancher manches mein meine meinem meinen meiner meines mit muss musste nach nicht nichts \
        noch nun nur ob oder ohne sehr sein seine seinem seinen seiner seines selbst sich sie ihnen sind so \
        solche solchem solchen solcher solches soll sollte sondern sonst über um und uns unse unsem unsen unser \
        unses unter viel vom von vor während war waren warst was weg weil weiter welche welchem welchen welcher \
        welches wenn werde werden wie wieder will wir wird wirst wo wollen wollte würde würden zu zum zur zwar \
        zwischen
        """)

    static let hungarian = words("""
        a ahogy ahol aki akik akkor alatt által általában amely amelyek amelyekben amelyeket amelyet amelynek \
        ami amit amolyan amíg amikor át abban ahhoz annak arra arról az azok azon azt azzal azért aztán azután \
        azonban bár be belül benne cikk cikkek cikkeket csak de e eddig egész egy egyes egyetlen egyéb egyik \
        egyre ekkor el elég ellen elő először előtt első én éppen ebben ehhez emilyen ennek erre ez ezt ezek \
        ezen ezzel ezért és fel felé hanem hiszen hogy hogyan igen így illetve ill ilyen ilyenkor ison ismét itt \
        jó jól jobban kell kellett keresztül keressünk ki kívül között közül legalább lehet lehetett legyen \
        lenne lenni lesz lett maga magát majd már más másik meg még mellett mert mely melyek mi mit míg miért \
        milyen mikor minden mindent mindenki mindig mint mintha mivel most nagy nagyobb nagyon ne néha nekem \
        neki nem néhány nélkül nincs olyan ott össze ő ők őket pedig persze rá s saját sem semmi sok sokat \
        sokkal számára szemben szerint szinte talán tehát teljes tovább továbbá több úgy ugyanis új újabb újra \
        után utána utolsó vagy vagyis valaki valami valamint való vagyok van vannak volt voltam voltak voltunk \
        vissza vele viszont volna
        """)

    static let italian = words("""
        ad al allo ai agli all agl alla alle con col coi da dal dallo dai dagli dall dagl dalla dalle di del \
        dello dei degli dell degl della delle in nel nello nei negli nell negl nella nelle su sul sullo sui \
        sugli sull sugl sulla sulle per tra contro io tu lui lei noi voi loro mio mia miei mie tuo tua tuoi tue \
        suo sua suoi sue nostro nostra nostri nostre vostro vostra vostri vostre mi ti ci vi lo la li le gli ne \
        il un uno una ma ed se perché anche come dov dove che chi cui non più quale quanto quanti quanta quante \
        quello quelli quella quelle questo questi questa queste si tutto tutti a c e i l o ho hai ha abbiamo \
        avete hanno abbia abbiate abbiano avrò avrai avrà avremo avrete avranno avrei avresti avrebbe avremmo \
        avreste avrebbero avevo avevi aveva avevamo avevate avevano ebbi avesti ebbe avemmo aveste ebbero avessi \
        avesse avessimo avessero avendo avuto avuta avuti avute sono sei è siamo siete sia siate siano sarò \
        sarai sarà saremo sarete saranno sarei saresti sarebbe saremmo sareste sarebbero ero eri era eravamo \
        eravate erano fui fosti fu fummo foste furono fossi fosse fossimo fossero essendo faccio fai facciamo \
        fanno faccia facciate facciano farò farai farà faremo farete faranno farei faresti farebbe faremmo \
        fareste farebbero facevo facevi faceva facevamo facevate facevano feci facesti fece facemmo faceste \
        fecero facessi facesse facessimo facessero facendo sto stai sta stiamo stanno stia stiate stiano starò \
        starai starà staremo starete staranno starei staresti starebbe staremmo stareste starebbero stavo stavi \
        stava stavamo stavate stavano stetti stesti stette stemmo steste stettero stessi stesse stessimo \
        stessero stando
        """)

    static let norwegian = words("""
        og i jeg det at en et den til er som på de med han av ikke ikkje der så var meg seg men ett har om vi \
        min mitt ha hadde hun nå over da ved fra du ut sin dem oss opp man kan hans hvor eller hva skal selv \
        sjøl her alle vil bli ble blei blitt kunne inn når være kom noen noe ville dere deres kun ja etter ned \
        skulle denne for deg si sine sitt mot å meget hvorfor dette disse uten hvordan ingen din ditt blir samme \
        hvilken hvilke sånn inni mellom vår hver hvem vors hvis både bare enn fordi før mange også slik vært båe \
        begge siden dykk dykkar dei deira deires deim di då eg ein eit eitt elles honom hjå ho hoe henne hennar \
        hennes hoss hossen ingi inkje korleis korso kva kvar kvarhelst kven kvi kvifor me medan mi mine mykje no \
        nokon noka nokor noko nokre sia sidan so somt somme um upp vere vore verte vort varte vart
        """)

    static let portuguese = words("""
        de a o que e do da em um para com não uma os no se na por mais as dos como mas ao ele das à seu sua ou \
        quando muito nos já eu também só pelo pela até isso ela entre depois sem mesmo aos seus quem nas me esse \
        eles você essa num nem suas meu às minha numa pelos elas qual nós lhe deles essas esses pelas este dele \
        tu te vocês vos lhes meus minhas teu tua teus tuas nosso nossa nossos nossas dela delas esta estes estas \
        aquele aquela aqueles aquelas isto aquilo estou está estamos estão estive esteve estivemos estiveram \
        estava estávamos estavam estivera estivéramos esteja estejamos estejam estivesse estivéssemos estivessem \
        estiver estivermos estiverem hei há havemos hão houve houvemos houveram houvera houvéramos haja hajamos \
        hajam houvesse houvéssemos houvessem houver houvermos houverem houverei houverá houveremos houverão \
        houveria houveríamos houveriam sou somos são era éramos eram fui foi fomos foram fora fôramos seja \
        sejamos sejam fosse fôssemos fossem for formos forem serei será seremos serão seria seríamos seriam \
        tenho tem temos tém tinha tínhamos tinham tive teve tivemos tiveram tivera tivéramos tenha tenhamos \
        tenham tivesse tivéssemos tivessem tiver tivermos tiverem terei terá teremos terão teria teríamos teriam
        """)

    static let romanian = words("""
        a abia acea aceasta această aceea aceia acel acela acelaşi același acele acelea aceluiaşi aceluiași \
        acest acesta aceste acestea acestei aceşti acești aceştia aceștia acestor acestora acestui acolo acum \
        adică ai aia aici al ăla alături ale alt alta altă altceva alte altele altfel alţi alți alţii alții \
        altul am anume apoi ar are aş aș aşa așa asemenea asta astăzi astfel asupra atare atât atâta atâtea \
        atâţi atâți atâţia atâția aţi ați atît atîti atîţia atîția atunci au avea avem avut azi ba bine ca că \
        cam când care căreia cărora căruia cât câtă câte câţi câți către ce cea ceea cei ceilalţi ceilalți cel \
        cele celelalte celor ceva chiar ci cînd cine cineva cît cîte cîteva cîţi cîți cîţiva cîțiva cu cui cum \
        cumva da daca dacă dar de deasupra decât deci decît deja deşi deși despre din dintr dintre doar după ea \
        ei el ele era este eu fără fecăreia fel fi fie fiecare fiecărui fiecăruia fiind foarte fost iar ieri îi \
        îl îmi împotriva în înainte înapoi înca încît însă însuşi însuși într între îşi își îţi îți la le li lor \
        lui mă mai mare mereu mod mult multă multe mulţi mulți ne nici niciodata nimeni nimic nişte niște noi \
        noştri noștri nostru nouă nu numai o oarecare oarece oarecine oarecui or orice oricum până pe pentru \
        peste pînă plus poată prea prin puţini puțini sa să săi sale sau său se şi și sînt sîntem sînteţi \
        sînteți spre sub sunt suntem sunteţi sunteți te ţi ți toată toate tocmai tot toţi toți totul totuşi \
        totuși tu tuturor un una unde unei unele uneori unii unor unui unul va vă voi vom vor vreo vreun
        """)

    static let russian = words("""
        и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот \
        от меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять \
        уж вам сказал ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам \
        чтоб без будто человек чего раз тоже себе под жизнь будет ж тогда кто этот говорил того потому этого \
        какой совсем ним здесь этом один почти мой тем чтобы нее кажется сейчас были куда зачем сказать всех \
        никогда сегодня можно при наконец два об другой хоть после над больше тот через эти нас про всего них \
        какая много разве сказала три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой \
        им более всегда конечно всю между
        """)

    static let spanish = words("""
        de la que el en y a los del se las por un para con no una su al lo como más pero sus le ya o este sí \
        porque esta entre cuando muy sin sobre también me hasta hay donde quien desde todo nos durante todos uno \
        les ni contra otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él tanto esa \
        estos mucho quienes nada muchos cual poco ella estar estas algunas algo nosotros mi mis tú te ti tu tus \
        ellas nosotras vosotros vosotras os mío mía míos mías tuyo tuya tuyos tuyas suyo suya suyos suyas \
        nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras esos esas estoy estás está estamos \
        estáis están esté estés estemos estéis estén estaré estarás estará estaremos estaréis estarán estaría \
        estarías estaríamos estaríais estarían estaba estabas estábamos estabais estaban estuve estuviste estuvo \
        estuvimos estuvisteis estuvieron estuviera estuvieras estuviéramos estuvierais estuvieran estuviese \
        estuvieses estuviésemos estuvieseis estuviesen estando estado estada estados estadas estad he has ha \
        hemos habéis han haya hayas hayamos hayáis hayan habré habrás habrá habremos habréis habrán habría \
        habrías habríamos habríais habrían había habías habíamos habíais habían hube hubiste hubo hubimos \
        hubisteis hubieron hubiera hubieras hubiéramos hubierais hubieran hubiese hubieses hubiésemos hubieseis \
        hubiesen habiendo habido habida habidos habidas soy eres es somos sois son sea seas seamos seáis sean \
        seré serás será seremos seréis serán sería serías seríamos seríais serían era eras éramos erais eran fui \
        fuiste fue fuimos fuisteis fueron fuera fueras fuéramos fuerais fueran fuese fueses fuésemos fueseis \
        fuesen siendo sido tengo tienes tiene tenemos tenéis tienen tenga tengas tengamos tengáis tengan tendré \
        tendrás tendrá tendremos tendréis tendrán tendría tendrías tendríamos tendríais tendrían tenía tenías \
        teníamos teníais tenían tuve tuviste tuvo tuvimos tuvisteis tuvieron tuviera tuvieras tuviéramos \
        tuvierais tuvieran tuviese tuvieses tuviésemos tuvieseis tuviesen teniendo tenido tenida tenidos tenidas \
        tened
        """)

    static let swedish = words("""
        och det att i en jag hon som han på den med var sig för så till är men ett om hade de av icke mig du \
        henne då sin nu har inte hans honom skulle hennes där min man ej vid kunde något från ut när efter upp \
        vi dem vara vad över än dig kan sina här ha mot alla under någon eller allt mycket sedan ju denna själv \
        detta åt utan varit hur ingen mitt ni bli blev oss din dessa några deras blir mina samma vilken er sådan \
        vår blivit dess inom mellan sådant varför varje vilka ditt vem vilket sitt sådana vart dina vars vårt \
        våra ert era vilkas
        """)

    static let turkish = words("""
        a acaba acep açıkça açıkçası adamakıllı adeta ait altı altmış ama amma anca ancak arada artık aslında \
        aynen ayrıca az bana bari başka başkası bazen bazı belki ben benden beni benim beri beriki beş bilcümle \
        bile bin binaen binaenaleyh bir biraz birazdan birbiri birçoğu birçok birden birdenbire biri birice \
        birileri birisi birkaç birkaçı birkez birlikte birşey birşeyi bitevi biteviye bittabi biz bizatihi bizce \
        bizcileyin bizden bize bizi bizim bizimki bizzat boşuna böyle böylece böylecene böylelikle böylemesine \
        böylesine bu buna bunda bundan bunlar bunları bunların bunu bunun buracıkta burada buradan burası \
        büsbütün bütün cuk cumbadak cumburlop cumhurca cuppadak cümlesi cümleten çabuk çabukça çeşitli çoğu \
        çoğun çoğunca çoğunlukla çok çokça çokları çoklarınca çokluk çoklukla çünkü da daha dahi dahil dahilen \
        daima dair dayanarak de defa değil değin dek demin demincek deminden denli derakap derhal derken diğer \
        diğeri diye doğru doksan dokuz dolayı dolayısıyla dört dörtnala edecek eden ederek edilecek ediliyor \
        edilmesi ediyor eğer elbet elbette elli emme en enikonu epey epeyce epeyi esasen esnasında etmesi \
        etraflı etraflıca etti ettiği ettiğini evleviyetle evvel evvela evvelce evvelden evvelemirde evveli \
        fakat filanca gah gayet gayetle gayrı gayri geçende geçenlerde gelgelelim gene gerçi gerek gırla gibi \
        gibilerden gibisinden gine göre hakeza halbuki halen halihazırda haliyle handiyse hangi hangisi hani \
        hariç hasebiyle hasılı hatta hele hem henüz hep hepsi her herhangi herkes herkesin hiç hiçbir hiçbiri \
        hoş hulasaten için iken iki ila ile ilen ilgili ilk illa illaki imdi indinde inen insermi ise ister iş \
        işte itibaren itibarıyla itibariyle iyi iyice iyicene kaçı kadar kaffesi kah kala kanımca karşın \
        katrilyon kelli kendi kendilerine kendini kendisi kendisine kendisini kere keşke kez keza kezalik kırk \
        kısaca ki kim kimden kime kimi kimisi kimse kimsecik kimsecikler külliyen lakin leh lütfen maada madem \
        mademki mamafih mebni meğer meğerki meğerse mı milyar milyon mu mü nasıl nasılsa naşi nazaran ne neden \
        nedeniyle nedenle nedense nerde nerden nerdeyse nere nerede nereden neredeyse neresi nereye netekim neye \
        neyi neyse nice niçin nihayet nihayetinde nitekim niye o olan olarak oldu olduğu olduğunu oldukça \
        olduklarını olmadı olmadığı olmak olması olmayan olmaz olsa olsun olup olur olursa oluyor on ona onca \
        onculayın onda ondan onlar onlardan onları onların onu onun oracık oracıkta orada oradan oranca oranla \
        oraya otuz oysa oysaki öbür öbürkü öbürü önce önceden önceleri öncelikle öteki ötekisi öyle öylece \
        öylelikle öylemesine pek pekala pekçe peki peyderpey rağmen sadece sahi sahiden sana sanki sekiz seksen \
        sen senden seni senin siz sizden sizi sizin sonra sonradan sonraları sonunda şayet şey şeyden şeyi \
        şeyler şimdi şöyle şu şuna şuncacık şunda şundan şunlar şunları şunu şunun şura şuracık şuracıkta şurası \
        tabii tam tamam tamamen tamamıyla tarafından tek trilyon tüm üç üzere var vardı vasıtasıyla ve velev \
        velhasıl velhasılıkelam veya veyahut ya yahut yakında yakından yakınlarda yakinen yalnız yalnızca yani \
        yapacak yapılan yapılması yapıyor yapmak yaptı yaptığı yaptığını yaptıkları yedi yeniden yenilerde \
        yerine yetmiş yine yirmi yok yoksa yoluyla yüz yüzünden zarfında zaten zati zira
        """)
}
